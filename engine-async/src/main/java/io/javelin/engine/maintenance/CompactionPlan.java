package io.javelin.engine.maintenance;

import java.io.Serializable;
import java.util.List;

/** The tasks of a distributed compaction planned at {@code readVersion} (Lance {@code CompactionPlan}); empty: nothing to do. */
public record CompactionPlan(long readVersion, List<CompactionTask> tasks, CompactionOptions options) implements Serializable {

    public CompactionPlan {
        tasks = List.copyOf(tasks);
    }
}
