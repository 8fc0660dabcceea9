package io.javelin.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Takes of top-level leaves gathered straight into Arrow buffers ({@link TakeGather}): fixed-width, strings
 * (FSST-compressible and random, mini-block and full-zip), large strings, binaries, fixed-size binaries and
 * fixed-size lists, nullable or not, over several pages of 2.1 and 2.2 files, with rows in any order and
 * repeated: every taken value equals the scanned row, the gather built the vectors (booleans fall back to
 * the general path), and every buffer is released.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class TakeGatherTest {

    @TempDir
    Path dir;

    static final Map<String, String> FULL_ZIP = Map.of("lance-encoding:structural-encoding", "fullzip");
    static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("i", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("w", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            new Field("ls", FieldType.nullable(ArrowType.LargeUtf8.INSTANCE), null),
            new Field("b", FieldType.nullable(ArrowType.Binary.INSTANCE), null),
            new Field("fsb", FieldType.nullable(new ArrowType.FixedSizeBinary(3)), null),
            new Field("v", FieldType.nullable(new ArrowType.FixedSizeList(4)), List.of(new Field("item", FieldType.notNullable(F32), null))),
            new Field("fz", new FieldType(true, ArrowType.Utf8.INSTANCE, null, FULL_ZIP), null),
            new Field("flag", FieldType.nullable(ArrowType.Bool.INSTANCE), null)));

    static boolean isNull(long row, int mod) {
        return row % mod == 3;
    }

    static String str(long row) {
        return row % 10 == 0 ? "" : "row-" + row + "-" + "xyz".repeat((int) (row % 4));
    }

    static VectorSchemaRoot batch(BufferAllocator a, long start, int n) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        SplittableRandom rnd = new SplittableRandom(start);
        for (int k = 0; k < n; k++) {
            long row = start + k;
            ((BigIntVector) r.getVector("id")).setSafe(k, row);
            if (!isNull(row, 5)) {
                ((IntVector) r.getVector("i")).setSafe(k, (int) (row * 7 % 1000));
            }
            if (!isNull(row, 7)) {
                ((VarCharVector) r.getVector("s")).setSafe(k, str(row).getBytes(StandardCharsets.UTF_8));
            }
            byte[] rand = new byte[8 + rnd.nextInt(8)];
            for (int j = 0; j < rand.length; j++) {
                rand[j] = (byte) ('a' + rnd.nextInt(26));
            }
            ((VarCharVector) r.getVector("w")).setSafe(k, rand);
            if (!isNull(row, 4)) {
                ((LargeVarCharVector) r.getVector("ls")).setSafe(k, str(row * 3).getBytes(StandardCharsets.UTF_8));
            }
            if (!isNull(row, 6)) {
                ((VarBinaryVector) r.getVector("b")).setSafe(k, new byte[] {(byte) row, (byte) (row >> 8)});
            }
            if (!isNull(row, 9)) {
                ((FixedSizeBinaryVector) r.getVector("fsb")).setSafe(k, new byte[] {(byte) row, 1, (byte) (row >> 8)});
            }
            FixedSizeListVector v = (FixedSizeListVector) r.getVector("v");
            if (!isNull(row, 8)) {
                v.setNotNull(k);
            } else {
                v.setNull(k);
            }
            for (int j = 0; j < 4; j++) {
                ((Float4Vector) v.getDataVector()).setSafe(k * 4 + j, row + j * 0.5f);
            }
            if (!isNull(row, 11)) {
                ((VarCharVector) r.getVector("fz")).setSafe(k, str(row + 1).getBytes(StandardCharsets.UTF_8));
            }
            if (!isNull(row, 3)) {
                ((BitVector) r.getVector("flag")).setSafe(k, (int) (row % 2));
            }
        }
        ((FixedSizeListVector) r.getVector("v")).getDataVector().setValueCount(n * 4);
        r.setRowCount(n);
        return r;
    }

    @ParameterizedTest
    @CsvSource({"V2_1,false", "V2_2,false", "V2_1,true", "V2_2,true"})
    void takesGatherEveryRowInRequestOrder(String v, boolean nativeDecode) throws Exception {
        var decode = io.javelin.encoding.file.DecodeOptions.DEFAULT.withNativeDecode(nativeDecode);
        int total = 6000;
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 6).concatMap(b -> Mono.using(() -> batch(a, b * 1000L, 1000), Mono::just,
                    VectorSchemaRoot::close, false), 1);
            LanceFileWriter.write(in, SCHEMA, store, "g.lance", WriteOptions.of(LanceFileVersion.valueOf(v)).withPageSize(8 * 1024))
                    .block(Duration.ofMinutes(1));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "g.lance"), decode).block();
                 VectorSchemaRoot all = r.scan(LanceFileReader.ScanOptions.all(total), a).single().block(Duration.ofMinutes(1))) {
                assertThat(r.metadata().columns().get(2).getPagesCount()).isGreaterThan(1);
                SplittableRandom rnd = new SplittableRandom(11);
                for (int round = 0; round < 12; round++) {
                    int n = round == 0 ? 1 : 1 + rnd.nextInt(round < 6 ? 40 : 900);
                    long[] idx = new long[n];
                    for (int k = 0; k < n; k++) {
                        // any order, repeats, neighbours (runs), the first and last rows
                        idx[k] = k > 0 && rnd.nextInt(4) == 0 ? idx[k - 1] + (rnd.nextBoolean() ? 0 : 1) % total
                                : rnd.nextInt(10) == 0 ? (rnd.nextBoolean() ? 0 : total - 1) : rnd.nextLong(total);
                        idx[k] = Math.min(idx[k], total - 1);
                    }
                    long built = TakeGather.BUILT.sum();
                    try (VectorSchemaRoot t = r.take(idx, null, a).block(Duration.ofSeconds(30))) {
                        assertThat(t.getRowCount()).isEqualTo(n);
                        for (int c = 0; c < SCHEMA.getFields().size(); c++) {
                            for (int k = 0; k < n; k++) {
                                Object got = t.getVector(c).getObject(k);
                                Object want = all.getVector(c).getObject((int) idx[k]);
                                assertThat(equal(got, want)).as("column %s row %d (take %d)", SCHEMA.getFields().get(c).getName(), idx[k], k)
                                        .isTrue();
                            }
                            assertThat(t.getVector(c).getNullCount()).isEqualTo(nulls(t.getVector(c), n));
                        }
                    }
                    // every column but the boolean one went through the gather
                    assertThat(TakeGather.BUILT.sum() - built).isEqualTo(SCHEMA.getFields().size() - 1);
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    static int nulls(org.apache.arrow.vector.FieldVector v, int n) {
        int c = 0;
        for (int k = 0; k < n; k++) {
            c += v.isNull(k) ? 1 : 0;
        }
        return c;
    }

    static boolean equal(Object a, Object b) {
        if (a instanceof byte[] x && b instanceof byte[] y) {
            return java.util.Arrays.equals(x, y);
        }
        return Objects.equals(a == null ? null : a.toString(), b == null ? null : b.toString());
    }
}
