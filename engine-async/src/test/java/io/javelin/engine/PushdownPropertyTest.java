package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

/**
 * Property: filter pushdown (late materialization, pruning) never changes a scan's result. Random data
 * (nulls in every nullable column, random fragment sizes, random deletions) and random filters; the
 * scan with pushdown must return exactly the rows, in the same order, as the scan without.
 * {@code -Djavelin.pushdown.seeds=N} (default 2) runs more datasets.
 */
class PushdownPropertyTest {

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void noLeaks() {
        alloc.close();
    }

    static LongStream seeds() {
        return LongStream.range(0, Integer.getInteger("javelin.pushdown.seeds", 2)).map(i -> 1000 + i);
    }

    static Schema schema() {
        return new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("v", FieldType.nullable(new ArrowType.Int(32, true)), null),
                new Field("d", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
    }

    static Flux<VectorSchemaRoot> data(BufferAllocator alloc, Random rnd, int rows, int batch) {
        return Flux.range(0, (rows + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, rows - b * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(schema(), alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            IntVector v = (IntVector) root.getVector("v");
            Float8Vector d = (Float8Vector) root.getVector("d");
            VarCharVector s = (VarCharVector) root.getVector("s");
            for (int i = 0; i < n; i++) {
                id.setSafe(i, (long) b * batch + i);
                if (rnd.nextInt(6) == 0) {
                    v.setNull(i);
                } else {
                    v.setSafe(i, rnd.nextInt(200) - 100);
                }
                if (rnd.nextInt(5) == 0) {
                    d.setNull(i);
                } else {
                    d.setSafe(i, rnd.nextInt(20) == 0 ? Double.NaN : rnd.nextGaussian());
                }
                if (rnd.nextInt(7) == 0) {
                    s.setNull(i);
                } else {
                    StringBuilder sb = new StringBuilder();
                    for (int k = rnd.nextInt(4); k >= 0; k--) {
                        sb.append((char) ('a' + rnd.nextInt(4)));
                    }
                    s.setSafe(i, sb.toString().getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(n);
            return root;
        });
    }

    static String atom(Random rnd) {
        return switch (rnd.nextInt(11)) {
            case 0 -> "v < " + (rnd.nextInt(200) - 100);
            case 1 -> "v IS NULL";
            case 2 -> "d > " + String.format(java.util.Locale.ROOT, "%.2f", rnd.nextGaussian());
            case 3 -> "d IS NOT NULL";
            case 4 -> "s LIKE '" + (char) ('a' + rnd.nextInt(4)) + "%'";
            case 5 -> "s = '" + (char) ('a' + rnd.nextInt(4)) + (char) ('a' + rnd.nextInt(4)) + "'";
            case 6 -> "id % " + (2 + rnd.nextInt(9)) + " = " + rnd.nextInt(2);
            case 7 -> "v BETWEEN " + (rnd.nextInt(100) - 100) + " AND " + rnd.nextInt(100);
            case 8 -> "v IN (" + (rnd.nextInt(10) - 5) + ", " + (rnd.nextInt(10) - 5) + ", 0)";
            case 9 -> "id >= " + rnd.nextInt(4000);
            default -> "s IS NULL";
        };
    }

    static String filter(Random rnd) {
        StringBuilder f = new StringBuilder();
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n; k++) {
            if (k > 0) {
                f.append(rnd.nextBoolean() ? " AND " : " OR ");
            }
            String a = atom(rnd);
            f.append(rnd.nextInt(4) == 0 ? "NOT (" + a + ")" : a);
        }
        return f.toString();
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void pushdownOnAndOffReturnTheSameRows(long seed) {
        Random rnd = new Random(seed);
        int rows = 2000 + rnd.nextInt(2000);
        String uri = "memory://PushdownPropertyTest-" + seed + "-" + System.nanoTime() + "/ds.lance";
        try (Dataset v1 = Dataset.write(uri, data(alloc, rnd, rows, 250 + rnd.nextInt(500)), schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(300 + rnd.nextInt(900))).block();
             Dataset ds = v1.delete(filter(rnd)).block()) {
            List<String> all = List.of("id", "v", "d", "s");
            for (int q = 0; q < 10; q++) {
                String f = filter(rnd);
                List<String> cols = new ArrayList<>(all);
                java.util.Collections.shuffle(cols, rnd);
                cols = cols.subList(0, 1 + rnd.nextInt(cols.size()));
                Scanner base = ds.scanner().filter(f).columns(cols).batchSize(64 + rnd.nextInt(700)).withRowId(rnd.nextBoolean());
                List<List<String>> on = collect(base.pushdown(true).scan(alloc));
                List<List<String>> off = collect(base.pushdown(false).scan(alloc));
                assertThat(on).as("seed %d filter %s columns %s", seed, f, cols).isEqualTo(off);
                assertThat(ds.count(f).block()).as("count(%s)", f).isEqualTo(on.size());
            }
        }
    }
}
