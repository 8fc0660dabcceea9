package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Opt-in take latency benchmark of {@link LanceFileReader#take} on one 2.1 file of the side-by-side shape
 * ({@code id int64, f float32, s utf8 16-20 letters, vec fixed_size_list<float32, 128>}):
 * {@code -Djavelin.test.extra="-Djavelin.take.bench=true -Djavelin.take.bench.rows=1000000"}. The file is
 * written once under {@code java.io.tmpdir/javelin-take-bench/<rows>}; each case runs warm-up takes, then
 * reports p50/p90 of random (sorted) takes, all columns and {@code vec} only, to stdout.
 */
@EnabledIfSystemProperty(named = "javelin.take.bench", matches = "true")
class TakeBenchTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(128)), List.of(
                    new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    static VectorSchemaRoot batch(BufferAllocator a, long start, int n, SplittableRandom rnd) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        BigIntVector id = (BigIntVector) r.getVector(0);
        Float4Vector f = (Float4Vector) r.getVector(1);
        VarCharVector s = (VarCharVector) r.getVector(2);
        FixedSizeListVector vec = (FixedSizeListVector) r.getVector(3);
        Float4Vector items = (Float4Vector) vec.getDataVector();
        byte[] word = new byte[20];
        for (int k = 0; k < n; k++) {
            id.setSafe(k, start + k);
            f.setSafe(k, (float) rnd.nextDouble());
            int len = 16 + rnd.nextInt(5);
            for (int c = 0; c < len; c++) {
                word[c] = (byte) ('a' + rnd.nextInt(26));
            }
            s.setSafe(k, word, 0, len);
            vec.setNotNull(k);
            for (int j = 0; j < 128; j++) {
                items.setSafe(k * 128 + j, (float) rnd.nextDouble());
            }
        }
        items.setValueCount(n * 128);
        r.setRowCount(n);
        return r;
    }

    @Test
    void takeLatency() throws Exception {
        long rows = Long.getLong("javelin.take.bench.rows", 1_000_000);
        int reps = Integer.getInteger("javelin.take.bench.reps", 200);
        Path dir = Path.of(System.getProperty("java.io.tmpdir"), "javelin-take-bench", Long.toString(rows));
        Files.createDirectories(dir);
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            if (!Files.exists(dir.resolve("READY"))) {
                SplittableRandom rnd = new SplittableRandom(42);
                int bs = 65_536;
                Flux<VectorSchemaRoot> in = Flux.range(0, (int) ((rows + bs - 1) / bs)).concatMap(b -> Mono.using(
                        () -> batch(a, (long) b * bs, (int) Math.min(bs, rows - (long) b * bs), rnd), Mono::just, VectorSchemaRoot::close,
                        false), 1);
                LanceFileWriter.write(in, SCHEMA, store, "t.lance", WriteOptions.of(LanceFileVersion.V2_1)).block(Duration.ofMinutes(10));
                Files.writeString(dir.resolve("READY"), "ok");
            }
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "t.lance")).block()) {
                for (int c = 0; c < 4; c++) {
                    var col = r.metadata().columns().get(c);
                    System.out.println("column " + c + ": " + col.getPagesCount() + " pages, first page "
                            + io.javelin.encoding.file.PageEncodings.pageLayout("t", 0, col.getPages(0).getEncoding()).getLayoutCase());
                }
                SplittableRandom rnd = new SplittableRandom(7);
                StringBuilder out = new StringBuilder("\nTAKE BENCH rows=" + rows + "\n| case | p50 ms | p90 ms | mean ms |\n|---|---:|---:|---:|\n");
                int[] sizes = Arrays.stream(System.getProperty("javelin.take.bench.sizes", "1,10,100,1000").split(","))
                        .mapToInt(Integer::parseInt).toArray();
                List<List<String>> colSets = new ArrayList<>();
                for (String cs : System.getProperty("javelin.take.bench.columns", "id+f+s+vec,vec").split(",")) {
                    colSets.add(List.of(cs.split("\\+")));
                }
                for (List<String> cols : colSets) {
                    for (int n : sizes) {
                        int count = n == 1000 ? Math.max(20, reps / 4) : reps;
                        double[] ms = new double[count];
                        for (int i = -count / 2; i < count; i++) {
                            long[] idx = rnd.longs(n, 0, rows).sorted().toArray();
                            long t0 = System.nanoTime();
                            try (VectorSchemaRoot t = r.take(idx, cols, a).block()) {
                                assertThat(t.getRowCount()).isEqualTo(n);
                                if (cols.get(0).equals("id")) {
                                    assertThat(((BigIntVector) t.getVector(0)).get(n - 1)).isEqualTo(idx[n - 1]);
                                }
                            }
                            if (i >= 0) {
                                ms[i] = (System.nanoTime() - t0) / 1e6;
                            }
                        }
                        Arrays.sort(ms);
                        out.append(String.format("| take %d, %s | %.3f | %.3f | %.3f |%n", n, String.join("+", cols),
                                ms[count / 2], ms[count * 9 / 10], Arrays.stream(ms).average().orElse(0)));
                    }
                }
                System.out.println(out);
            }
        }
    }
}
