package io.javelin.jmh.sidebyside;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.index.DistanceType;
import org.lance.index.IndexType;
import org.lance.index.vector.HnswBuildParams;
import org.lance.index.vector.IvfBuildParams;
import org.lance.index.vector.PQBuildParams;
import org.lance.index.vector.SQBuildParams;
import org.lance.index.vector.VectorIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.Query;
import org.lance.ipc.ScanOptions;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.core.publisher.Flux;

/**
 * kNN query throughput (QPS, one thread) and recall@10, Javelin vs lance-core 7.0.0 (issue #12), on the
 * data of the interop harness {@code IndexBenchmarkInteropTest}: {@code rows} × 128-d float32 vectors in 1 000
 * gaussian clusters (σ_centre 8, σ_noise 3), 4 fragments, 100 queries (a row's vector plus noise σ 2), k 10,
 * L2; each query returns {@code id} and {@code _distance}.
 *
 * <p>Every index type is built once by each engine on its own copy of the data (same parameters: {@code
 * partitions}, PQ 16×8 bit, SQ 8 bit, HNSW m 20 / ef_construction 150, {@code iters} k-means iterations) and
 * cached under {@code -Djavelin.bench.dir} (default {@code /tmp/javelin-vector-bench/<rows>-p<partitions>-i<iters>}).
 * {@code indexBy} chooses whose index an engine searches: its own, or the other engine's (the files are
 * interchangeable, so both engines can be timed on the very same index). {@code index=none} is exact search
 * without an index (on a third, index-free copy; {@code indexBy} is then irrelevant).
 *
 * <p>Recall@10 against brute force (computed once per data set, cached next to it) is measured over all
 * queries in the trial setup, printed, and appended as one JSON line per trial to {@code
 * -Djavelin.vecbench.out} (default {@code <bench dir>/recall.jsonl}); the JMH score is QPS.
 * {@code config}: {@code np16} = nprobes 16, {@code rf10} = refine factor 10, {@code ef100} = HNSW ef 100 (ef is
 * ignored by the other index types). The CI smoke run uses the small defaults; the recorded run:
 * {@code ./bench VectorSearchBenchmark -p rows=100000 -p partitions=256 -p config=np16,np16-rf10,np1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx4g"})
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
public class VectorSearchBenchmark {

    static final int DIM = 128;
    static final int K = 10;
    static final int QUERIES = 100;
    static final int SUB_VECTORS = 16;
    static final List<String> TYPES = List.of("IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_HNSW_SQ");
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)),
                    List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    @Param({"3000"})
    public int rows;

    /** IVF partitions (the recorded run uses 256, as the interop harness). */
    @Param({"8"})
    public int partitions;

    /** k-means iterations (IVF and PQ) of both engines' builds. */
    @Param({"20"})
    public int iters;

    @Param({"javelin", "lance-core"})
    public String engine;

    @Param({"IVF_FLAT", "IVF_PQ", "IVF_SQ", "IVF_HNSW_SQ", "none"})
    public String index;

    /** Whose index is searched: {@code javelin} or {@code lance-core}. */
    @Param({"javelin", "lance-core"})
    public String indexBy;

    @Param({"np16-rf10"})
    public String config;

    private BufferAllocator alloc;
    private Dataset javelin;
    private org.lance.Dataset lance;
    private float[][] queries;
    private int nprobes;
    private int refine;
    private int ef;
    private int next;

    // ------------------------------------------------------------------ data

    /** Row {@code id}'s vector: its cluster's centre (id mod 1000) plus noise, as the interop harness. */
    static float[] vector(long id) {
        Random c = new Random(id % 1000);
        Random r = new Random(id * 7919 + 1);
        float[] v = new float[DIM];
        for (int i = 0; i < DIM; i++) {
            v[i] = (float) (c.nextGaussian() * 8 + r.nextGaussian() * 3);
        }
        return v;
    }

    static Flux<VectorSchemaRoot> data(BufferAllocator alloc, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, count - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
            Float4Vector items = (Float4Vector) vec.getDataVector();
            for (int i = 0; i < n; i++) {
                long r = (long) b * batch + i;
                id.setSafe(i, r);
                vec.setNotNull(i);
                float[] v = vector(r);
                for (int j = 0; j < DIM; j++) {
                    items.setSafe(i * DIM + j, v[j]);
                }
            }
            items.setValueCount(n * DIM);
            id.setValueCount(n);
            vec.setValueCount(n);
            root.setRowCount(n);
            return root;
        });
    }

    /** The 100 queries: a random row's vector plus gaussian noise (σ 2), seeded as the interop harness. */
    static float[][] queries(int n) {
        Random r = new Random(99);
        float[][] qs = new float[QUERIES][];
        for (int i = 0; i < QUERIES; i++) {
            float[] v = vector(r.nextInt(n));
            for (int j = 0; j < DIM; j++) {
                v[j] += (float) r.nextGaussian() * 2;
            }
            qs[i] = v;
        }
        return qs;
    }

    static Path base(int rows, int partitions, int iters) {
        String dir = System.getProperty("javelin.bench.dir", "/tmp/javelin-vector-bench");
        return Path.of(dir, rows + "-p" + partitions + "-i" + iters);
    }

    static Path copy(Path base, String index, String by) {
        return base.resolve(index.equals("none") ? "plain.lance" : by + "-" + index + ".lance");
    }

    static VectorIndexParams lanceParams(String type, int partitions, int iters) {
        IvfBuildParams ivf = new IvfBuildParams.Builder().setNumPartitions(partitions).setMaxIters(iters).build();
        return switch (type) {
            case "IVF_FLAT" -> new VectorIndexParams.Builder(ivf).setDistanceType(DistanceType.L2).build();
            case "IVF_PQ" -> VectorIndexParams.withIvfPqParams(DistanceType.L2, ivf,
                    new PQBuildParams.Builder().setNumSubVectors(SUB_VECTORS).setNumBits(8).setMaxIters(iters).build());
            case "IVF_SQ" -> new VectorIndexParams.Builder(ivf).setDistanceType(DistanceType.L2)
                    .setSqParams(new SQBuildParams.Builder().setNumBits((short) 8).build()).build();
            case "IVF_HNSW_SQ" -> VectorIndexParams.withIvfHnswSqParams(DistanceType.L2, ivf,
                    new HnswBuildParams.Builder().setM(20).setEfConstruction(150).build(),
                    new SQBuildParams.Builder().setNumBits((short) 8).build());
            default -> throw new IllegalArgumentException(type);
        };
    }

    /**
     * Writes the index-free copy and, per index type, one copy indexed by each engine (timed, printed and
     * recorded in {@code builds.txt}), plus the brute-force top-10 of every query ({@code truth.bin}). Idempotent:
     * a finished directory has {@code READY}.
     */
    static synchronized Path prepare(int rows, int partitions, int iters) throws Exception {
        Path dir = base(rows, partitions, iters);
        if (Files.exists(dir.resolve("READY"))) {
            return dir;
        }
        SideBySide.deleteTree(dir);
        Files.createDirectories(dir);
        List<String> log = new ArrayList<>();
        try (BufferAllocator a = new RootAllocator()) {
            List<Path> copies = new ArrayList<>(List.of(copy(dir, "none", "")));
            for (String type : TYPES) {
                copies.add(copy(dir, type, "javelin"));
                copies.add(copy(dir, type, "lance-core"));
            }
            for (Path p : copies) {
                Dataset.write(p.toString(), data(a, rows, 10_000), SCHEMA,
                        WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(Math.max(1, (rows + 3) / 4))).block().close();
            }
            for (String type : TYPES) {
                long t0 = System.nanoTime();
                Dataset.open(copy(dir, type, "javelin").toString()).flatMap(d -> d.createIndex(List.of("vec"), IndexKind.parse(type),
                        IndexParams.defaults().withNumPartitions(partitions).withNumSubVectors(SUB_VECTORS).withMaxIters(iters)
                                .withHnsw(20, 150)).doFinally(s -> d.close())).block().close();
                double ours = (System.nanoTime() - t0) / 1e9;
                t0 = System.nanoTime();
                try (org.lance.Dataset l = org.lance.Dataset.open(copy(dir, type, "lance-core").toString(), a)) {
                    l.createIndex(List.of("vec"), IndexType.valueOf(type), Optional.of("vec_idx"),
                            org.lance.index.IndexParams.builder().setVectorIndexParams(lanceParams(type, partitions, iters)).build(), true);
                }
                double theirs = (System.nanoTime() - t0) / 1e9;
                String line = String.format(Locale.ROOT, "%s build over %d rows, %d partitions, %d iterations: javelin %.1f s, lance-core %.1f s",
                        type, rows, partitions, iters, ours, theirs);
                System.out.println("[vector-bench] " + line);
                log.add(line);
            }
        }
        writeTruth(dir.resolve("truth.bin"), bruteForce(rows, queries(rows)));
        Files.write(dir.resolve("builds.txt"), log);
        Files.writeString(dir.resolve("READY"), "ok");
        return dir;
    }

    /** Exact top-10 ids (squared L2, ties by id) of every query over the generated vectors. */
    static long[][] bruteForce(int rows, float[][] qs) {
        long[][] ids = new long[qs.length][K];
        float[][] dist = new float[qs.length][K];
        for (float[] d : dist) {
            java.util.Arrays.fill(d, Float.POSITIVE_INFINITY);
        }
        for (long id = 0; id < rows; id++) {
            float[] v = vector(id);
            for (int q = 0; q < qs.length; q++) {
                float s = 0;
                for (int j = 0; j < DIM; j++) {
                    float t = qs[q][j] - v[j];
                    s += t * t;
                }
                float[] d = dist[q];
                if (s < d[K - 1]) { // insertion into the sorted top-k (ids ascend, so a tie keeps the smaller id)
                    int at = K - 1;
                    while (at > 0 && d[at - 1] > s) {
                        d[at] = d[at - 1];
                        ids[q][at] = ids[q][at - 1];
                        at--;
                    }
                    d[at] = s;
                    ids[q][at] = id;
                }
            }
        }
        return ids;
    }

    static void writeTruth(Path file, long[][] ids) throws IOException {
        try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(file))) {
            out.writeInt(ids.length);
            for (long[] row : ids) {
                out.writeInt(row.length);
                for (long id : row) {
                    out.writeLong(id);
                }
            }
        }
    }

    static long[][] readTruth(Path file) throws IOException {
        try (DataInputStream in = new DataInputStream(Files.newInputStream(file))) {
            long[][] ids = new long[in.readInt()][];
            for (int q = 0; q < ids.length; q++) {
                ids[q] = new long[in.readInt()];
                for (int i = 0; i < ids[q].length; i++) {
                    ids[q][i] = in.readLong();
                }
            }
            return ids;
        }
    }

    // ------------------------------------------------------------------ trial

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        Path dir = prepare(rows, partitions, iters);
        for (String part : config.split("-")) {
            int v = Integer.parseInt(part.substring(2));
            switch (part.substring(0, 2)) {
                case "np" -> nprobes = v;
                case "rf" -> refine = v;
                case "ef" -> ef = v;
                default -> throw new IllegalArgumentException("config part " + part + " (np<N>, rf<N>, ef<N>)");
            }
        }
        if (nprobes < 1) {
            throw new IllegalArgumentException("config " + config + " lacks np<N>");
        }
        alloc = new RootAllocator();
        String uri = copy(dir, index, indexBy).toString();
        if (engine.equals("javelin")) {
            javelin = Dataset.open(uri).block();
        } else {
            lance = org.lance.Dataset.open(uri, alloc);
        }
        queries = queries(rows);
        long[][] truth = readTruth(dir.resolve("truth.bin"));
        int hits = 0;
        long t0 = System.nanoTime();
        for (int q = 0; q < QUERIES; q++) {
            long[] got = query(queries[q]);
            for (long id : got) {
                for (long t : truth[q]) {
                    hits += t == id ? 1 : 0;
                }
            }
        }
        double firstPassMs = (System.nanoTime() - t0) / 1e6 / QUERIES;
        double recall = hits / (double) (K * QUERIES);
        String json = String.format(Locale.ROOT,
                "{\"engine\":\"%s\",\"index\":\"%s\",\"indexBy\":\"%s\",\"config\":\"%s\",\"rows\":%d,\"partitions\":%d,\"iters\":%d,"
                        + "\"recall_at_10\":%.4f,\"first_pass_ms_per_query\":%.3f}",
                engine, index, index.equals("none") ? "-" : indexBy, config, rows, partitions, iters, recall, firstPassMs);
        System.out.println("[vector-bench] " + json);
        Path out = Path.of(System.getProperty("javelin.vecbench.out", dir.resolve("recall.jsonl").toString()));
        Files.writeString(out, json + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (javelin != null) {
            javelin.close();
            javelin = null;
        }
        if (lance != null) {
            lance.close();
            lance = null;
        }
        alloc.close();
    }

    /** One kNN query: the ids of the 10 nearest rows (with their {@code _distance}), nearest first. */
    long[] query(float[] q) throws Exception {
        boolean useIndex = !index.equals("none");
        long[] out = new long[K];
        int n = 0;
        if (javelin != null) {
            var nq = javelin.scanner().columns("id").nearest("vec", q, K).refineFactor(refine).ef(ef).useIndex(useIndex).nprobes(nprobes);
            for (VectorSchemaRoot b : nq.scan(alloc).collectList().block()) {
                try (b) {
                    BigIntVector v = (BigIntVector) b.getVector("id");
                    for (int i = 0; i < b.getRowCount() && n < K; i++) {
                        out[n++] = v.get(i);
                    }
                }
            }
        } else {
            Query.Builder qb = new Query.Builder().setColumn("vec").setKey(q).setK(K).setNprobes(nprobes).setUseIndex(useIndex);
            if (refine > 0) {
                qb.setRefineFactor(refine);
            }
            if (ef > 0) {
                qb.setEf(ef);
            }
            try (LanceScanner s = lance.newScan(new ScanOptions.Builder().columns(List.of("id", "_distance")).nearest(qb.build()).build());
                 ArrowReader r = s.scanBatches()) {
                while (r.loadNextBatch()) {
                    BigIntVector v = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
                    for (int i = 0; i < r.getVectorSchemaRoot().getRowCount() && n < K; i++) {
                        out[n++] = v.get(i);
                    }
                }
            }
        }
        return n == K ? out : java.util.Arrays.copyOf(out, n);
    }

    /** One query (the next of the 100, round robin); the score is queries per second. */
    @Benchmark
    public long search() throws Exception {
        long[] ids = query(queries[next]);
        next = (next + 1) % QUERIES;
        return ids.length == 0 ? -1 : ids[0];
    }

    /** {@code java -cp ... io.javelin.jmh.sidebyside.VectorSearchBenchmark [rows [partitions [iters]]]}: builds the copies only. */
    public static void main(String[] args) throws Exception {
        prepare(args.length > 0 ? Integer.parseInt(args[0]) : 100_000, args.length > 1 ? Integer.parseInt(args[1]) : 256,
                args.length > 2 ? Integer.parseInt(args[2]) : 20);
    }
}
