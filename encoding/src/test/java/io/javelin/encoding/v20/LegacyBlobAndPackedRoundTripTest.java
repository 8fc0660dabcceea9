package io.javelin.encoding.v20;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.TestBatches;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Our 2.0 writer, our 2.0 reader: blob columns keep nulls ({@code (1, 0)} descriptors) apart from empty
 * values ({@code (0, 0)}), and packed structs (one row-major column) decode to struct vectors, across
 * several pages.
 */
class LegacyBlobAndPackedRoundTripTest {

    static final int BATCHES = 3;
    static final int ROWS = 700;

    @TempDir
    Path dir;

    static Schema schema() {
        return new Schema(List.of(
                TestBatches.f("id", new ArrowType.Int(64, true), false),
                TestBatches.f("lb", ArrowType.LargeBinary.INSTANCE, true, Map.of("lance-encoding:blob", "true")),
                TestBatches.f("packed", ArrowType.Struct.INSTANCE, false, Map.of("packed", "true"),
                        TestBatches.f("x", new ArrowType.Int(32, true), false),
                        TestBatches.f("y", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), false),
                        TestBatches.f("z", new ArrowType.Int(16, false), false),
                        TestBatches.f("a", new ArrowType.FixedSizeBinary(3), false)),
                TestBatches.f("packed2", ArrowType.Struct.INSTANCE, false, Map.of("lance-encoding:packed", "true"),
                        TestBatches.f("b", new ArrowType.Int(8, true), false)),
                TestBatches.f("s", ArrowType.Utf8.INSTANCE, true)));
    }

    @Test
    void blobNullsEmptiesAndPackedStructsRoundTrip() throws Exception {
        Schema schema = schema();
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, BATCHES).concatMap(b -> Mono.using(
                    () -> TestBatches.batch(schema, alloc, 42, (long) b * ROWS, ROWS), Mono::just, VectorSchemaRoot::close,
                    false), 1);
            LanceFileWriter.write(in, schema, store, "v20.lance", WriteOptions.of(LanceFileVersion.V2_0).withPageSize(8 * 1024))
                    .block(Duration.ofMinutes(1));

            List<List<Object>> exp = new ArrayList<>();
            for (int c = 0; c < schema.getFields().size(); c++) {
                exp.add(new ArrayList<>());
            }
            for (int b = 0; b < BATCHES; b++) {
                try (VectorSchemaRoot root = TestBatches.batch(schema, alloc, 42, (long) b * ROWS, ROWS)) {
                    collect(root, exp);
                }
            }
            List<Object> blobs = exp.get(1);
            assertThat(blobs).contains((Object) null);
            assertThat(blobs.stream().filter(o -> o instanceof ByteBuffer bb && bb.remaining() == 0).count()).isPositive();
            assertThat(blobs.stream().filter(o -> o instanceof ByteBuffer bb && bb.remaining() > 0).count()).isPositive();

            List<List<Object>> act = new ArrayList<>();
            for (int c = 0; c < schema.getFields().size(); c++) {
                act.add(new ArrayList<>());
            }
            try (LanceFileReader r = LanceFileReader.open(LocalFileSource.open(dir.resolve("v20.lance"))).block()) {
                assertThat(r.metadata().columns()).hasSize(5); // one column per packed struct
                assertThat(r.metadata().columns().get(1).getPagesCount()).isGreaterThan(1);
                assertThat(r.metadata().columns().get(2).getPagesCount()).isGreaterThan(1);
                r.scan(LanceFileReader.ScanOptions.all(500), alloc).doOnNext(root -> {
                    try (root) {
                        assertThat(root.getVector(2)).isInstanceOf(StructVector.class);
                        assertThat(root.getVector(2).getChildrenFromFields()).hasSize(4);
                        collect(root, act);
                    }
                }).blockLast();
                // a projected sub-range crossing page boundaries, and a take of scattered rows
                List<List<Object>> part = List.of(new ArrayList<>(), new ArrayList<>());
                r.scan(LanceFileReader.ScanOptions.all(300).withColumns(List.of("packed", "lb")).withRange(333, 1777), alloc)
                        .doOnNext(root -> {
                            try (root) {
                                collect(root, part);
                            }
                        }).blockLast();
                assertThat(part.get(0)).isEqualTo(exp.get(2).subList(333, 1777));
                assertThat(part.get(1)).isEqualTo(exp.get(1).subList(333, 1777));
                // scattered rows over several pages, including the last null and the last empty blob
                long[] rows = {2099, 0, 1400, lastIndexOf(blobs, null), 701, lastEmpty(blobs), 1234};
                List<List<Object>> took = List.of(new ArrayList<>(), new ArrayList<>());
                try (VectorSchemaRoot root = r.take(rows, List.of("lb", "packed"), alloc).block()) {
                    collect(root, took);
                }
                for (int i = 0; i < rows.length; i++) {
                    assertThat(took.get(0).get(i)).as("lb row %s", rows[i]).isEqualTo(exp.get(1).get((int) rows[i]));
                    assertThat(took.get(1).get(i)).as("packed row %s", rows[i]).isEqualTo(exp.get(2).get((int) rows[i]));
                }
            }
            for (int c = 0; c < exp.size(); c++) {
                assertThat(act.get(c)).as("column %s", schema.getFields().get(c).getName()).isEqualTo(exp.get(c));
            }
        }
    }

    private static long lastIndexOf(List<Object> values, Object o) {
        return values.lastIndexOf(o);
    }

    private static long lastEmpty(List<Object> values) {
        for (int i = values.size() - 1; i >= 0; i--) {
            if (values.get(i) instanceof ByteBuffer bb && bb.remaining() == 0) {
                return i;
            }
        }
        throw new AssertionError("no empty value");
    }

    private static void collect(VectorSchemaRoot root, List<List<Object>> cols) {
        for (int c = 0; c < root.getFieldVectors().size(); c++) {
            FieldVector v = root.getVector(c);
            for (int i = 0; i < root.getRowCount(); i++) {
                cols.get(c).add(TestBatches.normalize(v.getObject(i)));
            }
        }
    }

    @Test
    void blobValidityFollowsTheDescriptorRule() {
        long[][] descs = {{0, 0}, {1, 0}, {128, 5}, {1, 7}, {64, 0}};
        byte[] v = LegacyFieldReader.blobValidity(descs, null);
        assertThat(v).isNotNull();
        boolean[] got = new boolean[descs.length];
        for (int i = 0; i < descs.length; i++) {
            got[i] = io.javelin.encoding.arrow.Bits.get(v, i);
        }
        assertThat(got).containsExactly(true, false, true, true, true);
        assertThat(LegacyFieldReader.blobValidity(new long[][] {{0, 0}, {64, 3}}, null)).isNull();
    }
}
