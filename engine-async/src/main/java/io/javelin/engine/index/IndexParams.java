package io.javelin.engine.index;

/**
 * Build parameters of {@code Dataset.createIndex}; 0 / null mean Lance's default. Immutable; {@code with*}
 * methods return copies.
 *
 * @param name           index name (default {@code {column}_idx})
 * @param replace        replace an index of the same name (otherwise that is an error)
 * @param numPartitions  IVF partitions (default {@code clamp(rows / target_partition_size, 1, 4096)})
 * @param numSubVectors  PQ sub-vectors (default: dim/8 when it divides, else 1... see {@link #subVectorsFor})
 * @param numBits        PQ/SQ bits (8)
 * @param metric         {@code l2} (default), {@code cosine}, {@code dot}
 * @param maxIters       k-means iterations (50)
 * @param sampleRate     training rows per partition / centroid (256)
 * @param hnswM          HNSW edges per node (20)
 * @param efConstruction HNSW construction beam (150)
 * @param fts            INVERTED tokenizer settings (null: Lance's defaults)
 */
public record IndexParams(String name, boolean replace, int numPartitions, int numSubVectors, int numBits, String metric,
                          int maxIters, int sampleRate, int hnswM, int efConstruction,
                          io.javelin.index.fts.FtsParams fts) {

    public static IndexParams defaults() {
        return new IndexParams(null, false, 0, 0, 0, null, 0, 0, 0, 0, null);
    }

    public IndexParams withName(String n) {
        return new IndexParams(n, replace, numPartitions, numSubVectors, numBits, metric, maxIters, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withReplace(boolean r) {
        return new IndexParams(name, r, numPartitions, numSubVectors, numBits, metric, maxIters, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withNumPartitions(int p) {
        return new IndexParams(name, replace, p, numSubVectors, numBits, metric, maxIters, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withNumSubVectors(int m) {
        return new IndexParams(name, replace, numPartitions, m, numBits, metric, maxIters, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withNumBits(int b) {
        return new IndexParams(name, replace, numPartitions, numSubVectors, b, metric, maxIters, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withMetric(String m) {
        return new IndexParams(name, replace, numPartitions, numSubVectors, numBits, m, maxIters, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withMaxIters(int i) {
        return new IndexParams(name, replace, numPartitions, numSubVectors, numBits, metric, i, sampleRate, hnswM, efConstruction, fts);
    }

    public IndexParams withSampleRate(int s) {
        return new IndexParams(name, replace, numPartitions, numSubVectors, numBits, metric, maxIters, s, hnswM, efConstruction, fts);
    }

    public IndexParams withHnsw(int m, int ef) {
        return new IndexParams(name, replace, numPartitions, numSubVectors, numBits, metric, maxIters, sampleRate, m, ef, fts);
    }

    /** Lance's {@code target_partition_size} per type. */
    static int targetPartitionSize(IndexKind kind) {
        return switch (kind) {
            case IVF_FLAT -> 4096;
            case IVF_HNSW_FLAT, IVF_HNSW_SQ -> 1_048_576;
            default -> 8192;
        };
    }

    int partitionsFor(IndexKind kind, long rows) {
        if (numPartitions > 0) {
            return numPartitions;
        }
        return (int) Math.max(1, Math.min(4096, rows / targetPartitionSize(kind)));
    }

    /** Sub-vectors: as given, else 16 when it divides dim (Lance's Rust default), else the largest divisor of dim ≤ 16. */
    int subVectorsFor(int dim) {
        if (numSubVectors > 0) {
            return numSubVectors;
        }
        for (int m = Math.min(16, dim); m > 1; m--) {
            if (dim % m == 0) {
                return m;
            }
        }
        return 1;
    }

    /** INVERTED index tokenizer settings (Lance's option names, see {@link io.javelin.index.fts.FtsParams}). */
    public IndexParams withFts(io.javelin.index.fts.FtsParams p) {
        return new IndexParams(name, replace, numPartitions, numSubVectors, numBits, metric, maxIters, sampleRate, hnswM, efConstruction, p);
    }

    public io.javelin.index.fts.FtsParams ftsOrDefault() {
        return fts != null ? fts : io.javelin.index.fts.FtsParams.defaults();
    }
}
