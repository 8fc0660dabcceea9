package io.javelin.engine.namespace;

import io.javelin.engine.Dataset;
import io.javelin.engine.FragmentMetadata;
import io.javelin.engine.WriteMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Group commit of appends to one table: concurrent inserts write their data files in parallel, then every
 * append waiting at that moment (with the same schema) is committed as one Append, so N concurrent inserts
 * cost one commit instead of N commits racing and rebasing on each other. Commits of one table are thus
 * sequential in this process; other writers still meet the normal conflict resolution.
 */
final class GroupCommitter {

    private record Pending(List<FragmentMetadata> fragments, Schema schema, MonoSink<Long> sink) {
    }

    private final String uri;
    private final Map<String, String> storageOptions;
    private final ConcurrentLinkedDeque<Pending> queue = new ConcurrentLinkedDeque<>();
    private final AtomicBoolean running = new AtomicBoolean();

    GroupCommitter(String uri, Map<String, String> storageOptions) {
        this.uri = uri;
        this.storageOptions = storageOptions;
    }

    /** Commits {@code fragments} with the next group; the version that made them visible. */
    Mono<Long> append(List<FragmentMetadata> fragments, Schema schema) {
        return Mono.create(sink -> {
            queue.add(new Pending(fragments, schema, sink));
            drain();
        });
    }

    private void drain() {
        if (!running.compareAndSet(false, true)) {
            return;
        }
        List<Pending> group = new ArrayList<>();
        List<Pending> later = new ArrayList<>();
        for (Pending p; (p = queue.poll()) != null; ) {
            (group.isEmpty() || group.getFirst().schema().equals(p.schema()) ? group : later).add(p);
        }
        for (int i = later.size() - 1; i >= 0; i--) {
            queue.addFirst(later.get(i));
        }
        if (group.isEmpty()) {
            running.set(false);
            if (!queue.isEmpty()) {
                drain();
            }
            return;
        }
        List<FragmentMetadata> all = new ArrayList<>();
        group.forEach(p -> all.addAll(p.fragments()));
        Dataset.commit(uri, storageOptions, WriteMode.APPEND, all, group.getFirst().schema()).subscribe(ds -> {
            long v;
            try (ds) {
                v = ds.version();
            }
            group.forEach(p -> p.sink().success(v));
            next();
        }, e -> {
            group.forEach(p -> p.sink().error(e));
            next();
        });
    }

    private void next() {
        running.set(false);
        if (!queue.isEmpty()) {
            drain();
        }
    }
}
