package io.javelin.engine.maintenance;

import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Which fragments to rewrite together (Lance {@code plan_compaction}): a fragment is a candidate when it has
 * fewer live rows than the target, or (with materialized deletions) at least the threshold fraction of its
 * rows deleted. Each run of adjacent candidates is one group, rewritten into fragments of the target size
 * (order preserved); a group of one fragment with nothing to materialize is left alone (rewriting it would
 * change nothing). Pure.
 */
public final class CompactionPlanner {

    private CompactionPlanner() {
    }

    public static List<List<FragmentInfo>> plan(List<FragmentInfo> fragments, CompactionOptions o) {
        List<List<FragmentInfo>> groups = new ArrayList<>();
        List<FragmentInfo> current = new ArrayList<>();
        for (FragmentInfo f : fragments) {
            if (!candidate(f, o)) {
                close(groups, current, o);
                current = new ArrayList<>();
                continue;
            }
            current.add(f);
        }
        close(groups, current, o);
        return groups;
    }

    static boolean candidate(FragmentInfo f, CompactionOptions o) {
        return f.liveRows() < o.targetRowsPerFragment() || deletionsToMaterialize(f, o);
    }

    private static boolean deletionsToMaterialize(FragmentInfo f, CompactionOptions o) {
        return o.materializeDeletions() && f.deletedRows() > 0 && f.physicalRows() > 0
                && (double) f.deletedRows() / f.physicalRows() >= o.materializeDeletionsThreshold();
    }

    private static void close(List<List<FragmentInfo>> groups, List<FragmentInfo> g, CompactionOptions o) {
        if (g.size() > 1 || (g.size() == 1 && deletionsToMaterialize(g.get(0), o))) {
            groups.add(List.copyOf(g));
        }
    }
}
