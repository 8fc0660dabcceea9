package io.javelin.index.vector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.index.CorruptIndexException;
import io.javelin.index.RowFilter;
import io.javelin.index.pb.IVF;
import io.javelin.index.pb.Tensor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An IVF vector index with FLAT, PQ or SQ partition storage, in Lance's V3 layout:
 * {@code index.idx} (IVF centroids in global buffer 1, the FLAT sub-index marker column) and
 * {@code auxiliary.idx} ({@code _rowid} plus the quantizer column, partitions concatenated in
 * order, PQ codes transposed per partition; IVF offsets/lengths in global buffer 1 and the PQ
 * codebook tensor in global buffer 2).
 *
 * <p>Immutable after construction, so a loaded index can be shared by concurrent searches.
 */
public final class IvfIndex {

    public static final String ROW_ID = "_rowid";
    public static final String PQ_CODE = "__pq_code";
    public static final String SQ_CODE = "__sq_code";
    public static final String FLAT_COLUMN = "flat";
    public static final String FLAT_MARKER = "__flat_marker";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How partition rows are stored. */
    public enum Kind {
        FLAT, PQ, SQ;

        /** Lance's index type name with FLAT sub-index: IVF_FLAT, IVF_PQ, IVF_SQ. */
        public String lanceType() {
            return "IVF_" + name();
        }
    }

    /** Build parameters (Lance defaults: sample_rate 256, max_iters 50, nbits 8). */
    public record BuildParams(int numPartitions, DistanceType type, Kind kind, int numSubVectors, int numBits,
                              int sampleRate, int maxIters, long seed, Hnsw.Params hnsw) {
        public static BuildParams ivfPq(int partitions, int m, DistanceType type) {
            return new BuildParams(partitions, type, Kind.PQ, m, 8, 256, 50, 42, null);
        }

        public static BuildParams ivfFlat(int partitions, DistanceType type) {
            return new BuildParams(partitions, type, Kind.FLAT, 0, 0, 256, 50, 42, null);
        }

        public static BuildParams ivfSq(int partitions, DistanceType type) {
            return new BuildParams(partitions, type, Kind.SQ, 0, 8, 256, 50, 42, null);
        }

        public BuildParams withMaxIters(int iters) {
            return new BuildParams(numPartitions, type, kind, numSubVectors, numBits, sampleRate, iters, seed, hnsw);
        }

        public BuildParams withSampleRate(int rate) {
            return new BuildParams(numPartitions, type, kind, numSubVectors, numBits, rate, maxIters, seed, hnsw);
        }

        public BuildParams withNumBits(int bits) {
            return new BuildParams(numPartitions, type, kind, numSubVectors, bits, sampleRate, maxIters, seed, hnsw);
        }

        /** An HNSW sub-index per partition (IVF_HNSW_FLAT / IVF_HNSW_SQ); Lance's defaults are {@link Hnsw.Params#LANCE_DEFAULT}. */
        public BuildParams withHnsw(Hnsw.Params params) {
            return new BuildParams(numPartitions, type, kind, numSubVectors, numBits, sampleRate, maxIters, seed, params);
        }
    }

    private final IvfModel ivf;
    private final Kind kind;
    private final DistanceType type;
    private final ProductQuantizer pq;
    private final ScalarQuantizer sq;
    private final long[][] rowIds;
    private final byte[][] codes;
    private final float[][] vectors;
    private final double loss;
    private final Hnsw[] graphs; // null: FLAT sub-index

    private IvfIndex(IvfModel ivf, Kind kind, DistanceType type, ProductQuantizer pq, ScalarQuantizer sq,
                     long[][] rowIds, byte[][] codes, float[][] vectors, double loss, Hnsw[] graphs) {
        this.graphs = graphs;
        this.ivf = ivf;
        this.kind = kind;
        this.type = type;
        this.pq = pq;
        this.sq = sq;
        this.rowIds = rowIds;
        this.codes = codes;
        this.vectors = vectors;
        this.loss = loss;
    }

    public IvfModel ivf() {
        return ivf;
    }

    public Kind kind() {
        return kind;
    }

    public DistanceType distanceType() {
        return type;
    }

    public int dim() {
        return ivf.dim();
    }

    public int partitionSize(int p) {
        return rowIds[p].length;
    }

    public ProductQuantizer pq() {
        return pq;
    }

    /** Lance's index type string: IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_FLAT, IVF_HNSW_SQ. */
    public String lanceType() {
        return graphs == null ? kind.lanceType() : "IVF_HNSW_" + kind.name();
    }

    public boolean hasHnsw() {
        return graphs != null;
    }

    /** The partition's HNSW graph scorer over its stored (quantized) vectors. */
    private Hnsw.Scorer scorer(int p) {
        int dim = ivf.dim();
        if (kind == Kind.FLAT) {
            return Hnsw.flatScorer(vectors[p], dim, type);
        }
        if (kind != Kind.SQ) {
            throw new UnsupportedOperationException("HNSW over " + kind + " storage is not supported yet");
        }
        byte[] c = codes[p];
        int n = rowIds[p].length;
        // graph construction compares stored codes pairwise: SIMD u8 L2 (exact integer sum, same value as sq.distance)
        java.lang.foreign.MemorySegment seg = java.lang.foreign.MemorySegment.ofArray(c);
        io.javelin.index.kernel.DistanceKernels kern = io.javelin.index.kernel.DistanceKernels.get();
        float scale = (sq.hi() - sq.lo()) / 255f;
        boolean l2 = type != DistanceType.DOT;
        return new Hnsw.Scorer() {
            @Override
            public int size() {
                return n;
            }

            @Override
            public float between(int a, int b) {
                return l2 ? kern.l2U8(seg, (long) a * dim, seg, (long) b * dim, dim) * scale * scale
                        : sq.distance(type, c, a * dim, c, b * dim);
            }

            @Override
            public Hnsw.QueryScorer query(float[] q) {
                byte[] qc = new byte[dim];
                sq.encode(q, 0, qc, 0);
                return node -> sq.distance(type, qc, 0, c, node * dim);
            }
        };
    }

    /** Approximate heap footprint, for the index cache. */
    public long estimatedBytes() {
        long b = 4L * ivf.centroids().length + (pq != null ? 4L * pq.codebook().length : 0);
        for (int p = 0; p < rowIds.length; p++) {
            b += 8L * rowIds[p].length + (codes[p] != null ? codes[p].length : 0) + (vectors[p] != null ? 4L * vectors[p].length : 0) + 48;
        }
        return b;
    }

    // ------------------------------------------------------------------ build

    /** Trains and builds an index over {@code n} row-major vectors with their row addresses. */
    public static IvfIndex build(float[] data, long[] rows, int n, int dim, BuildParams p) {
        if (data.length != n * dim || rows.length != n) {
            throw new IllegalArgumentException("Expected " + n + " vectors of dim " + dim + " and " + n + " row ids");
        }
        if (p.type() == DistanceType.HAMMING) {
            throw new IllegalArgumentException("IVF over f32 does not support hamming");
        }
        float[] x = data;
        if (p.type() == DistanceType.COSINE) {
            x = data.clone();
            for (int i = 0; i < n; i++) {
                IvfModel.normalize(x, i * dim, dim);
            }
        }
        int parts = Math.max(1, Math.min(p.numPartitions(), n));
        DistanceType trainType = p.type() == DistanceType.DOT ? DistanceType.DOT : DistanceType.L2;
        float[] sample = KMeans.sampleRows(x, n, dim, parts * p.sampleRate(), p.seed());
        int sn = sample.length / dim;
        KMeans.Model km = KMeans.train(sample, sn, dim, parts, trainType, p.maxIters(), p.seed());
        IvfModel model = new IvfModel(km.centroids(), parts, dim, p.type());
        int[] assignment = new int[n];
        KMeans.assign(x, n, dim, model.centroids(), parts, trainType, assignment);

        boolean residual = p.kind() == Kind.PQ && p.type() != DistanceType.DOT;
        ProductQuantizer pq = null;
        ScalarQuantizer sq = null;
        if (p.kind() == Kind.PQ) {
            int k = 1 << p.numBits();
            int count = Math.min(n, Math.max(k, p.sampleRate() * k));
            int[] idx = KMeans.sampleDistinct(n, count, new java.util.Random(p.seed() + 1));
            float[] train = new float[count * dim];
            for (int i = 0; i < count; i++) {
                int r = idx[i];
                for (int d = 0; d < dim; d++) {
                    float v = x[r * dim + d];
                    train[i * dim + d] = residual ? v - model.centroids()[assignment[r] * dim + d] : v;
                }
            }
            pq = ProductQuantizer.train(train, count, dim, p.numSubVectors(), p.numBits(), p.type(), p.maxIters(), p.seed() + 2);
        } else if (p.kind() == Kind.SQ) {
            sq = ScalarQuantizer.train(x, n, dim);
        }

        int[] counts = new int[parts];
        for (int a : assignment) {
            counts[a]++;
        }
        long[][] rowIds = new long[parts][];
        int[][] members = new int[parts][];
        for (int q = 0; q < parts; q++) {
            rowIds[q] = new long[counts[q]];
            members[q] = new int[counts[q]];
        }
        int[] fill = new int[parts];
        for (int i = 0; i < n; i++) {
            int a = assignment[i];
            rowIds[a][fill[a]] = rows[i];
            members[a][fill[a]++] = i;
        }
        byte[][] codes = new byte[parts][];
        float[][] vecs = new float[parts][];
        final ProductQuantizer fpq = pq;
        final ScalarQuantizer fsq = sq;
        final float[] fx = x;
        // partitions encode independently: in parallel (common fork-join pool; callers run builds off non-blocking threads)
        java.util.stream.IntStream.range(0, parts).parallel().forEach(q -> encodePartition(q, counts[q], members[q], fx, dim, model,
                residual, p.kind(), fpq, fsq, codes, vecs));
        IvfIndex flat = new IvfIndex(model, p.kind(), p.type(), pq, sq, rowIds, codes, vecs, km.loss(), null);
        if (p.hnsw() == null) {
            return flat;
        }
        Hnsw[] graphs = new Hnsw[parts];
        java.util.stream.IntStream.range(0, parts).parallel().forEach(q -> graphs[q] = Hnsw.build(flat.scorer(q), p.hnsw()));
        return new IvfIndex(model, p.kind(), p.type(), pq, sq, rowIds, codes, vecs, km.loss(), graphs);
    }

    private static void encodePartition(int q, int cnt, int[] member, float[] x, int dim, IvfModel model, boolean residual, Kind kind,
                                        ProductQuantizer pq, ScalarQuantizer sq, byte[][] codes, float[][] vecs) {
        float[] tmp = new float[dim];
        switch (kind) {
            case FLAT -> {
                vecs[q] = new float[cnt * dim];
                for (int j = 0; j < cnt; j++) {
                    System.arraycopy(x, member[j] * dim, vecs[q], j * dim, dim);
                }
            }
            case PQ -> {
                int w = pq.codeBytes();
                byte[] rowMajor = new byte[cnt * w];
                float[] c = model.centroids();
                for (int j = 0; j < cnt; j++) {
                    int off = member[j] * dim;
                    for (int d = 0; d < dim; d++) {
                        tmp[d] = residual ? x[off + d] - c[q * dim + d] : x[off + d];
                    }
                    pq.encode(tmp, 0, rowMajor, j * w);
                }
                codes[q] = ProductQuantizer.transpose(rowMajor, cnt, w);
            }
            case SQ -> {
                codes[q] = new byte[cnt * dim];
                for (int j = 0; j < cnt; j++) {
                    sq.encode(x, member[j] * dim, codes[q], j * dim);
                }
            }
        }
    }

    // ------------------------------------------------------------------ remap

    /**
     * This index with its row ids rewritten through {@code newId} (Lance's vector {@code remap} after
     * compaction): a row whose id maps to a negative value (deleted) is dropped, every other row keeps
     * its partition, position order and stored code under its new id; centroids and quantizer are
     * unchanged. HNSW sub-indexes are rebuilt per partition over the remapped storage with each graph's
     * own parameters, as Lance does (its {@code HNSW::remap} re-runs {@code index_vectors}).
     */
    public IvfIndex remap(java.util.function.LongUnaryOperator newId) {
        int parts = ivf.numPartitions();
        int dim = ivf.dim();
        long[][] ids = new long[parts][];
        byte[][] c = new byte[parts][];
        float[][] v = new float[parts][];
        for (int p = 0; p < parts; p++) {
            long[] old = rowIds[p];
            int n = old.length;
            int[] keep = new int[n];
            long[] mapped = new long[n];
            int m = 0;
            for (int i = 0; i < n; i++) {
                long to = newId.applyAsLong(old[i]);
                if (to >= 0) {
                    keep[m] = i;
                    mapped[m++] = to;
                }
            }
            ids[p] = java.util.Arrays.copyOf(mapped, m);
            switch (kind) {
                case FLAT -> {
                    v[p] = new float[m * dim];
                    for (int j = 0; j < m; j++) {
                        System.arraycopy(vectors[p], keep[j] * dim, v[p], j * dim, dim);
                    }
                }
                case SQ -> {
                    c[p] = new byte[m * dim];
                    for (int j = 0; j < m; j++) {
                        System.arraycopy(codes[p], keep[j] * dim, c[p], j * dim, dim);
                    }
                }
                case PQ -> { // transposed [byte][row]: keep the surviving columns of every byte row
                    int w = pq.codeBytes();
                    byte[] src = codes[p];
                    byte[] dst = new byte[m * w];
                    for (int b = 0; b < w; b++) {
                        int from = b * n, to = b * m;
                        for (int j = 0; j < m; j++) {
                            dst[to + j] = src[from + keep[j]];
                        }
                    }
                    c[p] = dst;
                }
            }
        }
        IvfIndex flat = new IvfIndex(ivf, kind, type, pq, sq, ids, c, v, loss, null);
        if (graphs == null) {
            return flat;
        }
        Hnsw[] rebuilt = new Hnsw[parts];
        java.util.stream.IntStream.range(0, parts).parallel()
                .forEach(p -> rebuilt[p] = Hnsw.build(flat.scorer(p), graphs[p] == null ? Hnsw.Params.LANCE_DEFAULT : graphs[p].params()));
        return new IvfIndex(ivf, kind, type, pq, sq, ids, c, v, loss, rebuilt);
    }

    /** Rows stored in every partition together. */
    public long numRows() {
        long n = 0;
        for (long[] r : rowIds) {
            n += r.length;
        }
        return n;
    }

    // ------------------------------------------------------------------ search

    /** Approximate k nearest neighbours, nearest first (ties by row id). */
    public Neighbor[] search(VectorQuery q, Refiner refiner) {
        Probe pr = probe(q);
        int p;
        while ((p = pr.next()) >= 0) {
            pr.search(p, partition(p));
        }
        return pr.finish(refiner);
    }

    /** One partition's rows as stored in {@code auxiliary.idx} (codes transposed for PQ). */
    public record Partition(long[] rowIds, byte[] codes, float[] vectors) {
        /** Approximate heap size, for the index cache. */
        public long bytes() {
            return 8L * rowIds.length + (codes == null ? 0 : codes.length) + (vectors == null ? 0 : 4L * vectors.length) + 64;
        }
    }

    /** Partition {@code p} of a fully loaded index (null arrays for a header-only index). */
    public Partition partition(int p) {
        return new Partition(rowIds[p], codes[p], vectors[p]);
    }

    /** Start a step-wise search: ask {@link Probe#next()} for partitions, feed them with {@link Probe#search}. */
    public Probe probe(VectorQuery q) {
        return new Probe(q);
    }

    /**
     * The probing state of one query (Lance's min/max nprobes rule): the nearest {@code min}
     * partitions are always searched; more are searched, nearest first, while fewer than
     * {@code k·refine} candidates passed the filters, up to {@code max}. Not thread-safe; one per query.
     */
    public final class Probe {
        private final VectorQuery q;
        private final float[] query;
        private final int[] order;
        private final int min;
        private final int max;
        private final TopK top;
        private final RowFilter filter;
        private float[] scratch = new float[0];
        private int probed;
        private int handedOut;

        private Probe(VectorQuery q) {
            int dim = ivf.dim();
            if (q.vector().length != dim) {
                throw new IllegalArgumentException("Query has dimension " + q.vector().length + ", index has " + dim);
            }
            this.q = q;
            this.query = q.vector().clone();
            if (type == DistanceType.COSINE) {
                IvfModel.normalize(query, 0, dim);
            }
            this.order = ivf.rank(query);
            int parts = ivf.numPartitions();
            this.min = Math.min(q.minNprobes(), parts);
            this.max = q.maxNprobes() == 0 ? parts : Math.min(q.maxNprobes(), parts);
            this.top = new TopK(q.candidates());
            this.filter = q.inIndexFilter();
        }

        /** True when no further partition is needed. */
        public boolean done() {
            return probed >= max || (probed >= min && top.isFull());
        }

        /** The next partition to search, or -1 when done. */
        public int next() {
            if (done() || handedOut >= max) {
                return -1;
            }
            return order[handedOut++];
        }

        /** Searches partition {@code p} with its data. */
        public void search(int p, Partition data) {
            scratch = searchPartition(p, data, query, filter, top, scratch, q.ef());
            probed++;
        }

        /** Top-k after optional refine and postfilter. */
        public Neighbor[] finish(Refiner refiner) {
            int dim = ivf.dim();
            Neighbor[] cands = top.sorted();
            Neighbor[] out;
            if (q.refineFactor() > 0 && refiner != null && cands.length > 0) {
                long[] ids = new long[cands.length];
                for (int i = 0; i < ids.length; i++) {
                    ids[i] = cands[i].rowId();
                }
                out = Refiner.refine(cands, refiner.vectors(ids), q.vector(), dim, q.k(), type);
            } else {
                out = cands.length > q.k() ? java.util.Arrays.copyOf(cands, q.k()) : cands;
            }
            if (q.postfilter() != RowFilter.ALL) {
                out = java.util.Arrays.stream(out).filter(nb -> q.postfilter().allows(nb.rowId())).toArray(Neighbor[]::new);
            }
            return out;
        }

        /** Candidates collected so far (before refine), nearest first. */
        public Neighbor[] candidates() {
            return top.sorted();
        }
    }

    private float[] searchPartition(int part, Partition data, float[] query, RowFilter filter, TopK top, float[] scratch, int ef) {
        long[] rows = data.rowIds();
        int n = rows.length;
        if (n == 0) {
            return scratch;
        }
        int dim = ivf.dim();
        if (graphs != null) {
            for (Neighbor nb : graphs[part].search(scorer(part).query(query), rows, top.k(), ef, filter)) {
                top.offer(nb.rowId(), nb.distance());
            }
            return scratch;
        }
        switch (kind) {
            case FLAT -> {
                float[] v = data.vectors();
                for (int r = 0; r < n; r++) {
                    if (filter.allows(rows[r])) {
                        top.offer(rows[r], type.f32(query, 0, v, r * dim, dim));
                    }
                }
            }
            case PQ -> {
                float[] qr = query;
                if (type != DistanceType.DOT) {
                    qr = new float[dim];
                    float[] c = ivf.centroids();
                    for (int d = 0; d < dim; d++) {
                        qr[d] = query[d] - c[part * dim + d];
                    }
                }
                float[] table = pq.distanceTable(qr);
                if (scratch.length < n) {
                    scratch = new float[n];
                }
                pq.distances(table, data.codes(), 0, n, scratch);
                for (int r = 0; r < n; r++) {
                    if (scratch[r] <= top.threshold() && filter.allows(rows[r])) {
                        top.offer(rows[r], scratch[r]);
                    }
                }
            }
            case SQ -> {
                byte[] qc = new byte[dim];
                sq.encode(query, 0, qc, 0);
                byte[] c = data.codes();
                for (int r = 0; r < n; r++) {
                    if (filter.allows(rows[r])) {
                        top.offer(rows[r], sq.distance(type, qc, c, r * dim));
                    }
                }
            }
        }
        return scratch;
    }

    /** Exact kNN over row-major vectors (Lance's flat search / ground truth); ties by row id. */
    public static Neighbor[] flatSearch(float[] data, long[] rows, int dim, float[] query, int k, DistanceType type, RowFilter filter) {
        TopK top = new TopK(k);
        for (int i = 0; i < rows.length; i++) {
            if (filter.allows(rows[i])) {
                top.offer(rows[i], type.f32(query, 0, data, i * dim, dim));
            }
        }
        return top.sorted();
    }

    // ------------------------------------------------------------------ Lance files

    /** Schema metadata of {@code index.idx}. */
    public Map<String, String> indexFileMetadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("lance:index", "{\"type\":\"" + lanceType() + "\",\"distance_type\":\"" + type.lanceName() + "\"}");
        m.put("lance:ivf", "1");
        if (graphs == null) {
            StringBuilder flat = new StringBuilder("[");
            for (int p = 0; p < ivf.numPartitions(); p++) {
                flat.append(p == 0 ? "" : ",").append("\"\"");
            }
            m.put("lance:flat", flat.append(']').toString());
        } else {
            List<String> metas = new ArrayList<>();
            for (Hnsw g : graphs) {
                metas.add(g.metadataJson());
            }
            try {
                m.put("lance:hnsw", JSON.writeValueAsString(metas));
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
        return m;
    }

    /**
     * Global buffer 1 of {@code index.idx}: centroids, and per partition the rows of the sub-index in
     * {@code index.idx} (all 0 for the FLAT sub-index; graph rows for HNSW).
     */
    public IVF indexFileIvf() {
        int p = ivf.numPartitions();
        long[] off = new long[p];
        int[] len = new int[p];
        if (graphs != null) {
            long o = 0;
            for (int i = 0; i < p; i++) {
                off[i] = o;
                len[i] = graphs[i].rowCount();
                o += len[i];
            }
        }
        return ivf.toProto(off, len, loss);
    }

    /** The rows of {@code index.idx}: the empty FLAT marker, or every partition's HNSW graph in partition order. */
    public VectorSchemaRoot indexFileBatch(BufferAllocator allocator) {
        if (graphs == null) {
            return indexFileBatch(allocator, indexFileMetadata());
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(Hnsw.schema().getFields(), indexFileMetadata()), allocator);
        try {
            int[] pos = {0, 0};
            for (Hnsw g : graphs) {
                pos = g.appendTo(root, pos[0], pos[1]);
            }
            Hnsw.finish(root, pos);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** The empty {@code __flat_marker: uint64} batch of {@code index.idx}. */
    public static VectorSchemaRoot indexFileBatch(BufferAllocator allocator, Map<String, String> metadata) {
        Schema schema = new Schema(List.of(new Field(FLAT_MARKER, FieldType.nullable(new ArrowType.Int(64, false)), null)), metadata);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        root.setRowCount(0);
        return root;
    }

    /** Schema metadata of {@code auxiliary.idx}. */
    public Map<String, String> auxiliaryFileMetadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("distance_type", type.lanceName());
        m.put("lance:ivf", "1");
        String storage = switch (kind) {
            case PQ -> pq.storageMetadataJson();
            case SQ -> sq.storageMetadataJson();
            case FLAT -> "{\"dim\":" + ivf.dim() + "}";
        };
        try {
            m.put("storage_metadata", JSON.writeValueAsString(List.of(storage)));
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        return m;
    }

    /** Global buffer 1 of {@code auxiliary.idx}: cumulative row offsets and lengths, no centroids. */
    public IVF auxiliaryFileIvf() {
        IVF.Builder b = IVF.newBuilder();
        long off = 0;
        for (long[] r : rowIds) {
            b.addOffsets(off).addLengths(r.length);
            off += r.length;
        }
        return b.build();
    }

    /** Global buffer 2 of {@code auxiliary.idx} for PQ: the codebook tensor. */
    public Tensor codebookTensor() {
        return pq.toTensor();
    }

    /** The rows of {@code auxiliary.idx}: {@code _rowid} and the quantizer column, partitions in order. */
    public VectorSchemaRoot auxiliaryBatch(BufferAllocator allocator) {
        int dim = ivf.dim();
        int width = switch (kind) {
            case PQ -> pq.codeBytes();
            case SQ, FLAT -> dim;
        };
        ArrowType item = kind == Kind.FLAT ? new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE) : new ArrowType.Int(8, false);
        String col = switch (kind) {
            case PQ -> PQ_CODE;
            case SQ -> SQ_CODE;
            case FLAT -> FLAT_COLUMN;
        };
        Schema schema = new Schema(List.of(
                new Field(ROW_ID, FieldType.nullable(new ArrowType.Int(64, false)), null),
                new Field(col, FieldType.nullable(new ArrowType.FixedSizeList(width)),
                        List.of(new Field("item", FieldType.nullable(item), null)))),
                auxiliaryFileMetadata());
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            int total = 0;
            for (long[] r : rowIds) {
                total += r.length;
            }
            UInt8Vector ids = (UInt8Vector) root.getVector(ROW_ID);
            FixedSizeListVector fsl = (FixedSizeListVector) root.getVector(col);
            ids.allocateNew(total);
            fsl.allocateNew();
            FieldVector child = fsl.getDataVector();
            int row = 0;
            for (int p = 0; p < rowIds.length; p++) {
                int n = rowIds[p].length;
                for (int r = 0; r < n; r++) {
                    ids.set(row + r, rowIds[p][r]);
                    fsl.setNotNull(row + r);
                }
                int base = row * width;
                if (kind == Kind.FLAT) {
                    Float4Vector f = (Float4Vector) child;
                    for (int i = 0; i < n * width; i++) {
                        f.setSafe(base + i, vectors[p][i]);
                    }
                } else {
                    UInt1Vector u = (UInt1Vector) child;
                    byte[] c = codes[p]; // PQ: already transposed [w][n] — written in that byte order, as Lance does
                    for (int i = 0; i < n * width; i++) {
                        u.setSafe(base + i, c[i]);
                    }
                }
                row += n;
            }
            child.setValueCount(total * width);
            fsl.setValueCount(total);
            ids.setValueCount(total);
            root.setRowCount(total);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    // ------------------------------------------------------------------ load

    /**
     * Loads an index from what the reader hands over: the schema metadata and IVF message of
     * {@code index.idx}, and the schema metadata, IVF message, optional PQ codebook tensor and all
     * rows of {@code auxiliary.idx}. Any inconsistency is a {@link CorruptIndexException}.
     */
    public static IvfIndex load(Map<String, String> indexMeta, IVF indexIvf, Map<String, String> auxMeta, IVF auxIvf,
                                Tensor codebook, VectorSchemaRoot aux, String resource) {
        return load(indexMeta, indexIvf, null, auxMeta, auxIvf, codebook, aux, resource);
    }

    /** As above, with the rows of {@code index.idx} (needed for HNSW sub-indexes; may be null for FLAT). */
    public static IvfIndex load(Map<String, String> indexMeta, IVF indexIvf, VectorSchemaRoot indexRows, Map<String, String> auxMeta,
                                IVF auxIvf, Tensor codebook, VectorSchemaRoot aux, String resource) {
        try {
            return doLoad(indexMeta, indexIvf, indexRows, auxMeta, auxIvf, codebook, aux, resource);
        } catch (CorruptIndexException e) {
            throw e;
        } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CorruptIndexException(resource, "Cannot load vector index: " + e, e);
        }
    }

    private static IvfIndex doLoad(Map<String, String> indexMeta, IVF indexIvf, VectorSchemaRoot indexRows, Map<String, String> auxMeta, IVF auxIvf,
                                   Tensor codebook, VectorSchemaRoot aux, String resource)
            throws com.fasterxml.jackson.core.JsonProcessingException {
        String idx = indexMeta.get("lance:index");
        CorruptIndexException.check(idx != null, resource, "index.idx lacks schema metadata lance:index");
        JsonNode idxJson = JSON.readTree(idx);
        String typeName = idxJson.path("type").asText("");
        DistanceType type = DistanceType.parse(idxJson.path("distance_type").asText(auxMeta.getOrDefault("distance_type", "l2")));
        boolean hnsw = typeName.toUpperCase(Locale.ROOT).startsWith("IVF_HNSW_");
        Kind kind = switch (typeName.toUpperCase(Locale.ROOT).replace("IVF_HNSW_", "IVF_")) {
            case "IVF_PQ" -> Kind.PQ;
            case "IVF_SQ" -> Kind.SQ;
            case "IVF_FLAT" -> Kind.FLAT;
            default -> throw new CorruptIndexException(resource, "Unsupported vector index type " + typeName);
        };
        IvfModel model = IvfModel.fromProto(indexIvf, type, resource);
        int parts = model.numPartitions();
        int dim = model.dim();
        CorruptIndexException.check(auxIvf.getLengthsCount() == parts && auxIvf.getOffsetsCount() == parts, resource,
                "auxiliary.idx IVF has %d lengths / %d offsets, index.idx has %d partitions",
                auxIvf.getLengthsCount(), auxIvf.getOffsetsCount(), parts);
        String storageList = auxMeta.get("storage_metadata");
        CorruptIndexException.check(storageList != null, resource, "auxiliary.idx lacks storage_metadata");
        JsonNode list = JSON.readTree(storageList);
        CorruptIndexException.check(list.isArray() && list.size() >= 1, resource, "storage_metadata is not a non-empty JSON list");
        JsonNode storage = JSON.readTree(list.get(0).asText());

        long expectedOff = 0;
        for (int p = 0; p < parts; p++) {
            CorruptIndexException.check(auxIvf.getOffsets(p) == expectedOff, resource,
                    "partition %d offset %d, expected %d", p, auxIvf.getOffsets(p), expectedOff);
            expectedOff += Integer.toUnsignedLong(auxIvf.getLengths(p));
        }

        ProductQuantizer pq = null;
        ScalarQuantizer sq = null;
        String col;
        int width;
        switch (kind) {
            case PQ -> {
                int nbits = storage.path("nbits").asInt(8);
                int m = storage.path("num_sub_vectors").asInt(0);
                CorruptIndexException.check(storage.path("dimension").asInt(dim) == dim, resource, "PQ dimension %s != IVF dimension %d",
                        storage.path("dimension"), dim);
                CorruptIndexException.check(storage.path("transposed").asBoolean(true), resource, "untransposed PQ storage is not supported");
                CorruptIndexException.check(codebook != null, resource, "PQ codebook tensor missing");
                pq = ProductQuantizer.fromTensor(codebook, dim, m, nbits, type, resource);
                col = PQ_CODE;
                width = pq.codeBytes();
            }
            case SQ -> {
                JsonNode b = storage.path("bounds");
                sq = new ScalarQuantizer(dim, (float) b.path("start").asDouble(), (float) b.path("end").asDouble());
                col = SQ_CODE;
                width = dim;
            }
            default -> {
                col = FLAT_COLUMN;
                width = dim;
            }
        }
        double loss0 = indexIvf.hasLoss() ? indexIvf.getLoss() : 0;
        if (aux == null) {
            CorruptIndexException.check(!hnsw, resource, "HNSW indexes load eagerly");
            return new IvfIndex(model, kind, type, pq, sq, new long[parts][], new byte[parts][], new float[parts][], loss0, null);
        }
        FieldVector ids = aux.getVector(ROW_ID);
        CorruptIndexException.check(ids instanceof UInt8Vector, resource, "_rowid must be uint64, got %s",
                ids == null ? "missing" : ids.getField().getType());
        int total = aux.getRowCount();
        CorruptIndexException.check(expectedOff == total, resource, "partitions cover %d rows, auxiliary.idx has %d", expectedOff, total);
        FieldVector cv = aux.getVector(col);
        CorruptIndexException.check(cv instanceof FixedSizeListVector, resource, "%s must be fixed_size_list, got %s", col,
                cv == null ? "missing" : cv.getField().getType());
        FixedSizeListVector fsl = (FixedSizeListVector) cv;
        CorruptIndexException.check(fsl.getListSize() == width, resource, "%s has list size %d, expected %d", col, fsl.getListSize(), width);
        FieldVector child = fsl.getDataVector();
        CorruptIndexException.check(kind == Kind.FLAT ? child instanceof Float4Vector : child instanceof UInt1Vector, resource,
                "%s items have type %s", col, child.getField().getType());
        CorruptIndexException.check(child.getValueCount() >= total * width, resource, "%s holds %d values, need %d", col,
                child.getValueCount(), total * width);

        UInt8Vector idv = (UInt8Vector) ids;
        long[][] rowIds = new long[parts][];
        byte[][] codes = new byte[parts][];
        float[][] vecs = new float[parts][];
        int row = 0;
        for (int p = 0; p < parts; p++) {
            int n = auxIvf.getLengths(p);
            rowIds[p] = new long[n];
            for (int r = 0; r < n; r++) {
                CorruptIndexException.check(!idv.isNull(row + r), resource, "null _rowid at row %d", row + r);
                rowIds[p][r] = idv.get(row + r);
            }
            int base = row * width;
            if (kind == Kind.FLAT) {
                Float4Vector f = (Float4Vector) child;
                vecs[p] = new float[n * width];
                for (int i = 0; i < n * width; i++) {
                    vecs[p][i] = f.get(base + i);
                }
                if (type == DistanceType.COSINE) {
                    for (int r = 0; r < n; r++) {
                        IvfModel.normalize(vecs[p], r * dim, dim);
                    }
                }
            } else {
                UInt1Vector u = (UInt1Vector) child;
                codes[p] = new byte[n * width];
                for (int i = 0; i < n * width; i++) {
                    codes[p][i] = u.get(base + i);
                }
            }
            row += n;
        }
        double loss = indexIvf.hasLoss() ? indexIvf.getLoss() : 0;
        Hnsw[] graphs = null;
        if (hnsw) {
            CorruptIndexException.check(kind != Kind.PQ, resource, "IVF_HNSW_PQ is not supported yet");
            CorruptIndexException.check(indexRows != null, resource, "HNSW index needs the rows of index.idx");
            String hnswList = indexMeta.get("lance:hnsw");
            CorruptIndexException.check(hnswList != null, resource, "index.idx lacks lance:hnsw");
            JsonNode metas = JSON.readTree(hnswList);
            CorruptIndexException.check(metas.isArray() && metas.size() == parts, resource, "lance:hnsw has %d entries for %d partitions",
                    metas.size(), parts);
            CorruptIndexException.check(indexIvf.getOffsetsCount() == parts, resource, "index.idx IVF has %d offsets", indexIvf.getOffsetsCount());
            graphs = new Hnsw[parts];
            for (int p = 0; p < parts; p++) {
                long off = indexIvf.getOffsets(p), len = Integer.toUnsignedLong(indexIvf.getLengths(p));
                CorruptIndexException.check(off + len <= indexRows.getRowCount(), resource,
                        "partition %d graph rows [%d, +%d) beyond index.idx (%d rows)", p, off, len, indexRows.getRowCount());
                graphs[p] = rowIds[p].length == 0 ? null : Hnsw.fromBatch(indexRows, (int) off, metas.get(p).asText(), rowIds[p].length, resource);
            }
        }
        IvfIndex base = new IvfIndex(model, kind, type, pq, sq, rowIds, codes, vecs, loss, null);
        if (graphs != null) {
            for (int p = 0; p < parts; p++) {
                if (graphs[p] == null) {
                    graphs[p] = Hnsw.build(base.scorer(p), Hnsw.Params.LANCE_DEFAULT); // empty partition: empty graph
                }
            }
        }
        return graphs == null ? base : new IvfIndex(model, kind, type, pq, sq, rowIds, codes, vecs, loss, graphs);
    }

    /**
     * Loads everything but the partition rows (centroids, quantizer, offsets): partitions are then
     * read on demand with {@link #decodePartition} (see {@code LazyIvfIndex}). Not for HNSW.
     */
    public static IvfIndex loadHeader(Map<String, String> indexMeta, IVF indexIvf, Map<String, String> auxMeta, IVF auxIvf,
                                      Tensor codebook, String resource) {
        return load(indexMeta, indexIvf, null, auxMeta, auxIvf, codebook, null, resource);
    }

    /** Row width of the quantizer column ({@code __pq_code} bytes, {@code __sq_code} bytes, or {@code flat} floats). */
    public int storageWidth() {
        return switch (kind) {
            case PQ -> pq.codeBytes();
            case SQ, FLAT -> ivf.dim();
        };
    }

    /**
     * Decodes partition rows read from {@code auxiliary.idx} (one or more batches, in row order,
     * {@code expectedRows} in total) into a {@link Partition}.
     */
    public Partition decodePartition(List<VectorSchemaRoot> batches, int expectedRows, String resource) {
        try {
            int width = storageWidth();
            String col = switch (kind) {
                case PQ -> PQ_CODE;
                case SQ -> SQ_CODE;
                case FLAT -> FLAT_COLUMN;
            };
            long[] rows = new long[expectedRows];
            byte[] c = kind == Kind.FLAT ? null : new byte[expectedRows * width];
            float[] v = kind == Kind.FLAT ? new float[expectedRows * width] : null;
            int at = 0;
            for (VectorSchemaRoot b : batches) {
                FieldVector ids = b.getVector(ROW_ID);
                FieldVector cv = b.getVector(col);
                CorruptIndexException.check(ids instanceof UInt8Vector && cv instanceof FixedSizeListVector fl && fl.getListSize() == width,
                        resource, "partition batch has columns %s", b.getSchema().getFields());
                FieldVector child = ((FixedSizeListVector) cv).getDataVector();
                int n = b.getRowCount();
                CorruptIndexException.check(at + n <= expectedRows, resource, "partition has more than %d rows", expectedRows);
                for (int r = 0; r < n; r++) {
                    CorruptIndexException.check(!ids.isNull(r), resource, "null _rowid");
                    rows[at + r] = ((UInt8Vector) ids).get(r);
                }
                // codes are transposed over the whole partition: copy bytes in order
                for (int i = 0; i < n * width; i++) {
                    if (v != null) {
                        v[at * width + i] = ((Float4Vector) child).get(i);
                    } else {
                        c[at * width + i] = ((UInt1Vector) child).get(i);
                    }
                }
                at += n;
            }
            CorruptIndexException.check(at == expectedRows, resource, "partition has %d rows, IVF says %d", at, expectedRows);
            if (v != null && type == DistanceType.COSINE) {
                for (int r = 0; r < expectedRows; r++) {
                    IvfModel.normalize(v, r * ivf.dim(), ivf.dim());
                }
            }
            return new Partition(rows, c, v);
        } catch (CorruptIndexException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CorruptIndexException(resource, "Cannot decode partition: " + e, e);
        }
    }

    /** Partition membership, for tests and statistics. */
    public List<long[]> partitions() {
        List<long[]> out = new ArrayList<>();
        for (long[] r : rowIds) {
            out.add(r.clone());
        }
        return out;
    }
}
