package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** orderBy: top-k equals a full sort on random data, in memory bounded by k, not by the table. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OrderedScanTest {

    static final int ROWS = 60_000;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("g", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("x", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    record Row(long id, Long g, Double x, String s) {
    }

    final List<Row> rows = new ArrayList<>();
    BufferAllocator setup;
    BufferAllocator alloc;
    Dataset ds;

    @BeforeAll
    void write() {
        Random r = new Random(7);
        for (int i = 0; i < ROWS; i++) {
            rows.add(new Row(i, r.nextInt(10) == 0 ? null : (long) r.nextInt(50), r.nextInt(10) == 0 ? null : r.nextDouble(),
                    r.nextInt(10) == 0 ? null : "s" + r.nextInt(1000)));
        }
        setup = new RootAllocator();
        Flux<VectorSchemaRoot> batches = Flux.range(0, ROWS / 5000).map(b -> {
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, setup);
            root.allocateNew();
            for (int i = 0; i < 5000; i++) {
                Row row = rows.get(b * 5000 + i);
                ((BigIntVector) root.getVector("id")).setSafe(i, row.id());
                if (row.g() == null) {
                    ((BigIntVector) root.getVector("g")).setNull(i);
                } else {
                    ((BigIntVector) root.getVector("g")).setSafe(i, row.g());
                }
                if (row.x() == null) {
                    ((Float8Vector) root.getVector("x")).setNull(i);
                } else {
                    ((Float8Vector) root.getVector("x")).setSafe(i, row.x());
                }
                if (row.s() == null) {
                    ((VarCharVector) root.getVector("s")).setNull(i);
                } else {
                    ((VarCharVector) root.getVector("s")).setSafe(i, row.s().getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(5000);
            return root;
        });
        ds = Dataset.write("memory://OrderedScanTest-" + System.nanoTime() + "/ds.lance", batches, SCHEMA,
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(20_000)).block();
    }

    @AfterAll
    void close() {
        ds.close();
        setup.close();
    }

    @BeforeEach
    void allocator() {
        alloc = new RootAllocator();
    }

    @AfterEach
    void noLeaks() {
        alloc.close();
    }

    List<Long> ids(OrderedScan scan, BufferAllocator a) {
        List<Long> out = new ArrayList<>();
        for (VectorSchemaRoot b : scan.scan(a).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.add(id.get(i));
                }
            }
        }
        return out;
    }

    /** g desc nulls first (DESC's default), then s asc nulls last, then scan order. */
    static final Comparator<Row> G_DESC_S_ASC = Comparator
            .comparing(Row::g, Comparator.nullsFirst(Comparator.<Long>reverseOrder()))
            .thenComparing(Row::s, Comparator.nullsLast(Comparator.<String>naturalOrder()));

    @Test
    void topKEqualsAFullSort() {
        List<Long> expected = rows.stream().filter(r -> r.x() != null && r.x() > 0.3).sorted(G_DESC_S_ASC)
                .map(Row::id).toList();
        OrderedScan top = ds.scanner().columns("id").filter("x > 0.3").batchSize(1000).orderBy("g desc", "s");
        assertThat(ids(top.limit(37), alloc)).isEqualTo(expected.subList(0, 37));
        assertThat(ids(ds.scanner().columns("id").filter("x > 0.3").offset(5).limit(20).batchSize(7)
                .orderBy("g desc", "s"), alloc)).isEqualTo(expected.subList(5, 25));
        assertThat(ids(top, alloc)).as("no limit: a full sort").isEqualTo(expected);
        List<Long> byX = rows.stream().sorted(Comparator.comparing(Row::x, Comparator.nullsFirst(Comparator.<Double>naturalOrder())))
                .map(Row::id).limit(10).toList();
        assertThat(ids(ds.scanner().columns("id").limit(10).orderBy("x asc nulls first"), alloc)).isEqualTo(byX);
    }

    @Test
    void topKMemoryIsBoundedByKNotByTheTable() {
        // a plain scan of the same rows, each batch closed at once: the pipeline's own peak
        long tableBytes = 0;
        long maxBatch = 0;
        long plainPeak;
        try (BufferAllocator a = new RootAllocator()) {
            for (VectorSchemaRoot b : ds.scanner().columns("id", "s").batchSize(1000).scan(a)
                    .publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
                try (b) {
                    long bytes = b.getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum();
                    tableBytes += bytes;
                    maxBatch = Math.max(maxBatch, bytes);
                }
            }
            plainPeak = a.getPeakMemoryAllocation();
        }
        long topPeak;
        try (BufferAllocator a = new RootAllocator()) {
            assertThat(ids(ds.scanner().columns("id", "s").batchSize(1000).limit(10).orderBy("s desc"), a)).hasSize(10);
            topPeak = a.getPeakMemoryAllocation();
        }
        // the top-k adds its kept rows and one merge (kept + one batch): a few batches, not the table
        assertThat(topPeak).as("top-k peak; plain scan peak %d, table %d bytes, batch %d", plainPeak, tableBytes, maxBatch)
                .isLessThanOrEqualTo(plainPeak + 4 * maxBatch + 16 * 1024)
                .isLessThan(plainPeak + tableBytes / 4);
    }

    @Test
    void badKeysAreInvalidScans() {
        assertThatThrownBy(() -> ids(ds.scanner().orderBy("nosuch desc"), alloc)).isInstanceOf(InvalidScanException.class)
                .hasMessageContaining("no column 'nosuch'");
    }
}
