package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Pages decoded straight into native memory ({@code v21.NativePages}): nullable and non-nullable ints,
 * doubles and strings (plain, repetitive for dictionaries/FSST, with nulls) over several pages, scanned
 * with batch sizes that put batches inside pages, across page boundaries and over the whole file; values
 * and nulls equal what was written, and every byte is released when the batches close.
 */
class NativeDecodeScanTest {

    @TempDir
    Path dir;

    static final java.util.Map<String, String> FULL_ZIP = java.util.Map.of("lance-encoding:structural-encoding", "fullzip");
    static final Schema SCHEMA = new Schema(List.of(
            new Field("i", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("l", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("d", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("c", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("fd", new FieldType(true, new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), null, FULL_ZIP), null),
            new Field("fs", new FieldType(true, ArrowType.Utf8.INSTANCE, null, FULL_ZIP), null)));
    static final String[] WORDS = {"red", "green", "blue", "cyan", "magenta", "yellow"};

    static boolean isNull(int col, long row) {
        return switch (col) {
            case 0 -> row % 7 == 3;
            case 2 -> row % 11 == 5 || (row >= 2000 && row < 2600); // a run of nulls too
            case 3 -> row % 13 == 0;
            case 4 -> row % 17 == 1;
            case 5 -> row % 5 == 2;
            case 6 -> row % 6 == 4;
            default -> false;
        };
    }

    static int i(long row) {
        return (int) ((row * 2654435761L) % 5000);
    }

    static double d(long row) {
        return row * 0.25 - 7;
    }

    static String s(long row) {
        return row % 9 == 0 ? "" : "user-" + (row * 31 % 1000) + "-" + WORDS[(int) (row % WORDS.length)] + "-" + row;
    }

    static String c(long row) {
        return WORDS[(int) ((row / 3) % WORDS.length)];
    }

    static VectorSchemaRoot batch(BufferAllocator a, long start, int n) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        for (int k = 0; k < n; k++) {
            long row = start + k;
            if (!isNull(0, row)) {
                ((IntVector) r.getVector(0)).setSafe(k, i(row));
            }
            ((BigIntVector) r.getVector(1)).setSafe(k, row * 3);
            if (!isNull(2, row)) {
                ((Float8Vector) r.getVector(2)).setSafe(k, d(row));
            }
            if (!isNull(3, row)) {
                ((VarCharVector) r.getVector(3)).setSafe(k, s(row).getBytes(StandardCharsets.UTF_8));
            }
            if (!isNull(4, row)) {
                ((VarCharVector) r.getVector(4)).setSafe(k, c(row).getBytes(StandardCharsets.UTF_8));
            }
            if (!isNull(5, row)) {
                ((Float8Vector) r.getVector(5)).setSafe(k, d(row));
            }
            if (!isNull(6, row)) {
                ((VarCharVector) r.getVector(6)).setSafe(k, s(row).getBytes(StandardCharsets.UTF_8));
            }
        }
        r.setRowCount(n);
        return r;
    }

    static void check(VectorSchemaRoot root, long first) {
        for (int k = 0; k < root.getRowCount(); k++) {
            long row = first + k;
            IntVector iv = (IntVector) root.getVector("i");
            assertThat(iv.isNull(k)).as("i null at %d", row).isEqualTo(isNull(0, row));
            if (!isNull(0, row)) {
                assertThat(iv.get(k)).isEqualTo(i(row));
            }
            assertThat(((BigIntVector) root.getVector("l")).get(k)).isEqualTo(row * 3);
            Float8Vector dv = (Float8Vector) root.getVector("d");
            assertThat(dv.isNull(k)).as("d null at %d", row).isEqualTo(isNull(2, row));
            if (!isNull(2, row)) {
                assertThat(dv.get(k)).isEqualTo(d(row));
            }
            VarCharVector sv = (VarCharVector) root.getVector("s");
            assertThat(sv.isNull(k)).as("s null at %d", row).isEqualTo(isNull(3, row));
            if (!isNull(3, row)) {
                assertThat(sv.getObject(k).toString()).isEqualTo(s(row));
            }
            VarCharVector cv = (VarCharVector) root.getVector("c");
            assertThat(cv.isNull(k)).as("c null at %d", row).isEqualTo(isNull(4, row));
            if (!isNull(4, row)) {
                assertThat(cv.getObject(k).toString()).isEqualTo(c(row));
            }
            Float8Vector fd = (Float8Vector) root.getVector("fd");
            assertThat(fd.isNull(k)).as("fd null at %d", row).isEqualTo(isNull(5, row));
            if (!isNull(5, row)) {
                assertThat(fd.get(k)).isEqualTo(d(row));
            }
            VarCharVector fs = (VarCharVector) root.getVector("fs");
            assertThat(fs.isNull(k)).as("fs null at %d", row).isEqualTo(isNull(6, row));
            if (!isNull(6, row)) {
                assertThat(fs.getObject(k).toString()).isEqualTo(s(row));
            }
        }
        for (var v : root.getFieldVectors()) {
            int nulls = 0;
            for (int k = 0; k < root.getRowCount(); k++) {
                nulls += v.isNull(k) ? 1 : 0;
            }
            assertThat(v.getNullCount()).as("null count of %s", v.getName()).isEqualTo(nulls);
        }
    }

    @Test
    void nullableAndStringPagesDecodeNativelyAndScanToTheWrittenRows() throws Exception {
        int total = 9000;
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            for (LanceFileVersion version : new LanceFileVersion[] {LanceFileVersion.V2_0, LanceFileVersion.V2_1, LanceFileVersion.V2_2}) {
                String name = "n-" + version + ".lance";
                Flux<VectorSchemaRoot> in = Flux.range(0, 9).concatMap(b -> Mono.using(() -> batch(a, b * 1000L, 1000), Mono::just,
                        VectorSchemaRoot::close, false), 1);
                LanceFileWriter.write(in, SCHEMA, store, name, WriteOptions.of(version).withPageSize(16 * 1024))
                        .block(Duration.ofMinutes(1));
                try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, name)).block()) {
                    assertThat(r.metadata().columns().get(3).getPagesCount()).isGreaterThan(2);
                    for (int bs : new int[] {97, 1000, 4096, total}) {
                        List<VectorSchemaRoot> kept = new ArrayList<>();
                        r.scan(LanceFileReader.ScanOptions.all(bs), a).doOnNext(kept::add).blockLast();
                        long first = 0;
                        for (VectorSchemaRoot root : kept) {
                            try (root) {
                                check(root, first); // after the scan: batches own their memory
                                first += root.getRowCount();
                            }
                        }
                        assertThat(first).isEqualTo(total);
                    }
                    long[] idx = new SplittableRandom(5).longs(200, 0, total).sorted().distinct().toArray();
                    try (VectorSchemaRoot t = r.take(idx, null, a).block()) {
                        for (int k = 0; k < idx.length; k++) {
                            try (VectorSchemaRoot one = t.slice(k, 1)) {
                                check(one, idx[k]);
                            }
                        }
                    }
                }
                assertThat(a.getAllocatedMemory()).isZero();
            }
        }
    }

    @Test
    void nullablePagesBecomeNativePagesWithValidity() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Mono.using(() -> batch(a, 0, 3000), Mono::just, VectorSchemaRoot::close, false).flux();
            LanceFileWriter.write(in, SCHEMA, store, "p.lance", WriteOptions.of(LanceFileVersion.V2_1)).block(Duration.ofMinutes(1));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "p.lance")).block()) {
                for (int col = 0; col < 7; col++) {
                    var fr = new io.javelin.encoding.v21.StructuralFieldReader(r.metadata(), r.metadata().fields().get(col));
                    Object decoded = firstPage(fr, r, java.nio.file.Files.readAllBytes(dir.resolve("p.lance")), col).decoded();
                    try {
                        assertThat(decoded).as("column %d", col).isInstanceOf(DirectPage.class);
                        DirectPage dp = (DirectPage) decoded;
                        assertThat(dp.validity() != null).as("validity of column %d", col).isEqualTo(col != 1);
                        long nulls = 0;
                        for (long row = 0; row < dp.count(); row++) {
                            nulls += isNull(col, row) ? 1 : 0;
                        }
                        assertThat(dp.nullCount(0, dp.count())).isEqualTo(nulls);
                    } finally {
                        if (decoded instanceof AutoCloseable c) {
                            c.close();
                        }
                    }
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    /** Page 0 of column {@code col} decoded by {@code fr} from native copies of its buffers, and those buffers. */
    record FirstPage(Object decoded, List<io.javelin.encoding.io.Buf> bufs, List<io.javelin.objectstore.memory.Buffer> owned) {
    }

    /** Decodes page 0 of {@code col}; the decoded page holds the only reference on the buffers' memory. */
    static FirstPage firstPage(FieldReader fr, LanceFileReader r, byte[] file, int col) {
        var page = r.metadata().columns().get(col).getPages(0);
        List<io.javelin.encoding.io.Buf> bufs = new ArrayList<>();
        List<io.javelin.objectstore.memory.Buffer> owned = new ArrayList<>();
        for (int b = 0; b < page.getBufferOffsetsCount(); b++) {
            var nb = io.javelin.objectstore.memory.Buffer.allocate(Math.max(1, page.getBufferSizes(b)), "t");
            java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(file), page.getBufferOffsets(b),
                    nb.segment(), 0, page.getBufferSizes(b));
            owned.add(nb);
            bufs.add(new io.javelin.encoding.io.Buf("p", page.getBufferOffsets(b), nb.segment().asSlice(0, page.getBufferSizes(b))));
        }
        var mem = new io.javelin.encoding.io.SharedMemory(() -> owned.forEach(io.javelin.objectstore.memory.Buffer::close));
        Object decoded = fr.decodePage(new PageRef(col, 0), bufs, mem);
        mem.release();
        return new FirstPage(decoded, bufs, owned);
    }

    /** 2.0 plain pages: the page wraps the values where they were read (zero-copy), nulls included. */
    @Test
    void plainV20PagesWrapTheReadBuffers() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Mono.using(() -> batch(a, 0, 3000), Mono::just, VectorSchemaRoot::close, false).flux();
            LanceFileWriter.write(in, SCHEMA, store, "p20.lance", WriteOptions.of(LanceFileVersion.V2_0)).block(Duration.ofMinutes(1));
            byte[] file = java.nio.file.Files.readAllBytes(dir.resolve("p20.lance"));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "p20.lance")).block()) {
                int wrapped = 0;
                for (int col = 0; col < 7; col++) {
                    var fr = new io.javelin.encoding.v20.LegacyFieldReader(r.metadata(), r.metadata().fields().get(col));
                    FirstPage fp = firstPage(fr, r, file, col);
                    Object decoded = fp.decoded();
                    List<io.javelin.encoding.io.Buf> bufs = fp.bufs();
                    List<io.javelin.objectstore.memory.Buffer> owned = fp.owned();
                    try {
                        assertThat(decoded).as("column %d", col).isInstanceOf(DirectPage.class);
                        DirectPage dp = (DirectPage) decoded;
                        long nulls = 0;
                        for (long row = 0; row < dp.count(); row++) {
                            nulls += isNull(col, row) ? 1 : 0;
                        }
                        assertThat(dp.nullCount(0, dp.count())).as("nulls of column %d", col).isEqualTo(nulls);
                        long at = dp.data().address();
                        boolean inRead = bufs.stream().anyMatch(b -> at >= b.seg().address() && at < b.seg().address() + b.seg().byteSize());
                        if (inRead) {
                            wrapped++;
                            assertThat(owned.get(0).isReleased()).isFalse(); // the page keeps the read buffers
                        }
                    } finally {
                        if (decoded instanceof AutoCloseable c) {
                            c.close();
                        }
                    }
                    assertThat(owned).allSatisfy(b -> assertThat(b.isReleased()).isTrue());
                }
                // i, l, d, fd (fixed width, with and without nulls) and the plain strings s, fs are wrapped
                assertThat(wrapped).isGreaterThanOrEqualTo(6);
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
}
