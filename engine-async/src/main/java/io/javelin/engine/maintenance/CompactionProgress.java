package io.javelin.engine.maintenance;

import java.util.function.LongConsumer;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * Optional progress of a compaction, carried in the Reactor context of the {@code compact} subscription so the
 * API stays unchanged: {@code ds.compact(o).contextWrite(CompactionProgress.reporting(rows -> ...))}. The consumer
 * gets the row count of each batch read for rewriting, on whatever (possibly non-blocking) thread reads it, so it
 * must be cheap and must not block.
 */
public final class CompactionProgress {

    private static final Class<CompactionProgress> KEY = CompactionProgress.class;

    private CompactionProgress() {
    }

    /** A context entry that reports the rows read for rewriting to {@code rowsRead}. */
    public static Context reporting(LongConsumer rowsRead) {
        return Context.of(KEY, rowsRead);
    }

    /** Engine side: passes each batch's row count to the consumer in the subscriber's context, if any. */
    public static Flux<VectorSchemaRoot> observe(Flux<VectorSchemaRoot> batches) {
        return batches.transformDeferredContextual((f, ctx) -> consumer(ctx)
                .map(c -> f.doOnNext(b -> c.accept(b.getRowCount())))
                .orElse(f));
    }

    private static java.util.Optional<LongConsumer> consumer(ContextView ctx) {
        return ctx.getOrEmpty(KEY);
    }
}
