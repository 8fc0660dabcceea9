package io.javelin.jmh;

import io.javelin.engine.filter.Predicate;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Vectorized filter evaluation over one 64 Ki-row batch of the benchmark shape (rows per second). */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FilterBenchmark {

    @Param({"f < 0.01", "id >= 1000 AND id < 2000 OR s LIKE 'ab%'"})
    public String filter;

    private static final int ROWS = 65536;
    private BufferAllocator allocator;
    private VectorSchemaRoot batch;
    private Predicate predicate;

    @Setup(Level.Trial)
    public void setUp() {
        Schema schema = new Schema(List.of(
                new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
                new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));
        allocator = new RootAllocator();
        batch = VectorSchemaRoot.create(schema, allocator);
        batch.allocateNew();
        Random r = new Random(7);
        BigIntVector id = (BigIntVector) batch.getVector("id");
        Float4Vector f = (Float4Vector) batch.getVector("f");
        VarCharVector s = (VarCharVector) batch.getVector("s");
        for (int i = 0; i < ROWS; i++) {
            id.setSafe(i, i);
            f.setSafe(i, r.nextFloat());
            StringBuilder sb = new StringBuilder();
            for (int k = 0; k < 16 + r.nextInt(5); k++) {
                sb.append((char) ('a' + r.nextInt(26)));
            }
            s.setSafe(i, sb.toString().getBytes(StandardCharsets.UTF_8));
        }
        batch.setRowCount(ROWS);
        predicate = Predicate.compile(filter, schema);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batch.close();
        allocator.close();
    }

    @Benchmark
    public int evaluate() {
        return predicate.evaluate(batch).selectedCount();
    }
}
