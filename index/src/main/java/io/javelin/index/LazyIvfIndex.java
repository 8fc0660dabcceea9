package io.javelin.index;

import io.javelin.index.pb.IVF;
import io.javelin.index.vector.IvfIndex;
import io.javelin.index.vector.Neighbor;
import io.javelin.index.vector.VectorQuery;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * An IVF vector segment whose partitions are read on demand ({@code auxiliary.idx} rows
 * {@code [offset, offset+length)} per partition, as Lance does) and kept in an {@link IndexCache}.
 * Only the centroids and quantizer are resident. Searches probe partitions nearest first with
 * Lance's min/max nprobes rule, loading each partition before scanning it.
 */
public final class LazyIvfIndex {

    private final IvfIndex header;
    private final IVF auxIvf;
    private final IndexFileSource src;
    private final IndexCache cache;
    private final String resource;

    private LazyIvfIndex(IvfIndex header, IVF auxIvf, IndexFileSource src, IndexCache cache, String resource) {
        this.header = header;
        this.auxIvf = auxIvf;
        this.src = src;
        this.cache = cache;
        this.resource = resource;
    }

    /** Opens a FLAT-sub-index segment (IVF_FLAT / IVF_PQ / IVF_SQ); {@code resource} also keys the cache (use the uuid). */
    public static Mono<LazyIvfIndex> open(IndexFileSource src, IndexCache cache, String resource) {
        return IndexReaders.ivfParts(src, resource).map(pp -> {
            CorruptIndexException.check(!pp.hnsw(), resource, "HNSW segments are opened with IndexReaders.openIvf");
            IvfIndex header = IvfIndex.loadHeader(pp.indexMeta(), pp.indexIvf(), pp.auxMeta(), pp.auxIvf(), pp.codebook(), resource);
            return new LazyIvfIndex(header, pp.auxIvf(), src, cache, resource);
        });
    }

    public IvfIndex header() {
        return header;
    }

    /** Partition {@code p}, from the cache or read from {@code auxiliary.idx}. */
    public Mono<IvfIndex.Partition> partition(int p) {
        long start = auxIvf.getOffsets(p);
        int len = auxIvf.getLengths(p);
        String res = resource + "/auxiliary.idx#" + p;
        return cache.get(resource + "/auxiliary.idx#" + p,
                () -> len == 0 ? Mono.just(new IvfIndex.Partition(new long[0], new byte[0], new float[0]))
                        : src.readRange("auxiliary.idx", start, start + len)
                                .collectList()
                                .map(batches -> {
                                    try {
                                        return header.decodePartition(batches, len, res);
                                    } finally {
                                        batches.forEach(VectorSchemaRoot::close);
                                    }
                                }),
                IvfIndex.Partition::bytes);
    }

    /**
     * ANN search; with {@code refine_factor} the candidates' vectors come from {@code take} (row-major f32).
     * Partitions are requested one at a time (no prefetch), so exactly the partitions the
     * min/max nprobes rule asks for are read.
     */
    public Mono<Neighbor[]> search(VectorQuery q, Function<long[], Mono<float[]>> take) {
        return Mono.defer(() -> {
            IvfIndex.Probe probe = header.probe(q);
            return probeFrom(probe, probe.next()).then(Mono.defer(() -> {
                if (q.refineFactor() == 0 || take == null) {
                    return Mono.just(probe.finish(null));
                }
                Neighbor[] cands = probe.candidates();
                long[] ids = new long[cands.length];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = cands[i].rowId();
                }
                return take.apply(ids).map(vectors -> probe.finish(rows -> vectors));
            }));
        }).subscribeOn(Schedulers.parallel()); // one hop to a CPU thread per query
    }

    /**
     * Probes partitions from {@code p} on: cached ones are searched right here in one go (a thread hop per
     * partition cost more than scanning it), a missing one is read and searched back on a CPU thread.
     */
    private Mono<Void> probeFrom(IvfIndex.Probe probe, int p) {
        while (p >= 0) {
            IvfIndex.Partition cached = cache.peek(resource + "/auxiliary.idx#" + p);
            if (cached == null) {
                break;
            }
            probe.search(p, cached);
            p = probe.next();
        }
        if (p < 0) {
            return Mono.empty();
        }
        int miss = p;
        return partition(miss).publishOn(Schedulers.parallel()).flatMap(data -> {
            probe.search(miss, data);
            return probeFrom(probe, probe.next());
        });
    }
}
