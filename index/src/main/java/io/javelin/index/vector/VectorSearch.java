package io.javelin.index.vector;

import java.util.function.Function;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The reactive edge of vector search: the ANN part runs on the parallel scheduler (CPU work), the
 * refine step fetches original vectors through {@code take} (a dataset take returning row-major
 * f32 vectors in request order) and re-ranks by exact distance.
 */
public final class VectorSearch {

    private VectorSearch() {
    }

    public static Mono<Neighbor[]> search(IvfIndex index, VectorQuery q, Function<long[], Mono<float[]>> take) {
        Mono<Neighbor[]> ann = Mono.fromCallable(() -> {
            if (q.refineFactor() == 0) {
                return index.search(q, null);
            }
            // collect k·refine candidates without refining yet
            VectorQuery wide = new VectorQuery(q.vector(), q.candidates(), q.minNprobes(), q.maxNprobes(), 0,
                    q.prefilter(), q.deleted(), io.javelin.index.RowFilter.ALL, q.ef());
            return index.search(wide, null);
        }).subscribeOn(Schedulers.parallel());
        if (q.refineFactor() == 0 || take == null) {
            return ann;
        }
        return ann.flatMap(cands -> {
            long[] ids = new long[cands.length];
            for (int i = 0; i < ids.length; i++) {
                ids[i] = cands[i].rowId();
            }
            return take.apply(ids).map(vectors -> {
                Neighbor[] out = Refiner.refine(cands, vectors, q.vector(), index.dim(), q.k(), index.distanceType());
                return java.util.Arrays.stream(out).filter(nb -> q.postfilter().allows(nb.rowId())).toArray(Neighbor[]::new);
            });
        });
    }
}
