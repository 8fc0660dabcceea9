package io.javelin.encoding.file;

import static io.javelin.encoding.writer.TestBatches.f;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.v21.StructuralFieldReader;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.TestBatches;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
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
 * Booleans and structs of leaves (nullable structs and children, structs in structs, strings, fixed-size
 * lists and booleans inside) decode into native pages and assemble without copies: scans with native decode
 * on give exactly the rows of the heap path (2.1 and 2.2, several pages, batches inside and across pages,
 * projections, row ranges, takes), and a batch's buffers lie inside the pages' native memory.
 */
class NestedNativeScanTest {

    @TempDir
    Path dir;

    static final Schema SCHEMA = new Schema(List.of(
            f("id", new ArrowType.Int(64, true), false),
            f("b", ArrowType.Bool.INSTANCE, true),
            f("bn", ArrowType.Bool.INSTANCE, false),
            f("st", ArrowType.Struct.INSTANCE, true,
                    f("a", new ArrowType.Int(32, true), true),
                    f("s", ArrowType.Utf8.INSTANCE, true)),
            f("deep", ArrowType.Struct.INSTANCE, true,
                    f("x", ArrowType.Struct.INSTANCE, true,
                            f("y", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
                            f("z", ArrowType.Bool.INSTANCE, true)),
                    f("v", new ArrowType.FixedSizeList(3), true,
                            f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false)),
                    f("ls", ArrowType.LargeUtf8.INSTANCE, false)),
            f("nn", ArrowType.Struct.INSTANCE, false,
                    f("k", new ArrowType.Int(16, true), false),
                    f("t", ArrowType.Bool.INSTANCE, false)),
            f("li", ArrowType.List.INSTANCE, true, f("item", new ArrowType.Int(32, true), true)),
            f("lf", ArrowType.List.INSTANCE, false, f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false)),
            f("ls", ArrowType.List.INSTANCE, true, f("item", ArrowType.Utf8.INSTANCE, true)),
            f("ll", ArrowType.LargeList.INSTANCE, true, f("item", new ArrowType.Int(64, true), true)),
            f("lb", ArrowType.List.INSTANCE, true, f("item", ArrowType.Bool.INSTANCE, true)),
            f("lv", ArrowType.List.INSTANCE, true, f("item", new ArrowType.FixedSizeList(2), true,
                    f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false))),
            // 256-byte items: full-zip list pages
            f("lz", ArrowType.List.INSTANCE, true, f("item", new ArrowType.FixedSizeList(64), true,
                    f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false))),
            f("lst", ArrowType.List.INSTANCE, true, f("item", ArrowType.Struct.INSTANCE, true,
                    f("x", new ArrowType.Int(16, true), true),
                    f("s", ArrowType.LargeUtf8.INSTANCE, true))),
            f("sl", ArrowType.Struct.INSTANCE, true,
                    f("l", ArrowType.List.INSTANCE, true, f("item", new ArrowType.Int(8, false), false)),
                    f("t", ArrowType.Struct.INSTANCE, true, f("z", ArrowType.Bool.INSTANCE, true))),
            f("m", new ArrowType.Map(false), true,
                    f("entries", ArrowType.Struct.INSTANCE, false,
                            f("key", ArrowType.Utf8.INSTANCE, false),
                            f("value", new ArrowType.Int(64, true), true)))));

    static final int ROWS = 5000;

    /** Maps need 2.2. */
    static Schema schema(LanceFileVersion v) {
        return v == LanceFileVersion.V2_1 ? new Schema(SCHEMA.getFields().stream().filter(x -> !x.getName().equals("m")).toList()) : SCHEMA;
    }

    private void write(LocalObjectStore store, String name, LanceFileVersion v, BufferAllocator a) {
        Flux<VectorSchemaRoot> in = Flux.range(0, 5).concatMap(b -> Mono.using(
                () -> TestBatches.batch(schema(v), a, 11, b * 1000L, 1000), Mono::just, VectorSchemaRoot::close, false), 1);
        LanceFileWriter.write(in, schema(v), store, name, WriteOptions.of(v).withPageSize(8 * 1024)).block(Duration.ofMinutes(1));
    }

    /** Every row of every column as normalized objects (plus null counts), read with native decode on or off. */
    private static List<Object> rows(LanceFileReader r, LanceFileReader.ScanOptions o, BufferAllocator a, boolean nativeDecode) {
        List<Object> out = new ArrayList<>();
        try (LanceFileReader with = r.withDecode(DecodeOptions.DEFAULT.withNativeDecode(nativeDecode))) {
            with.scan(o, a).doOnNext(root -> {
                try (root) {
                    collect(root, out);
                }
            }).blockLast();
        }
        return out;
    }

    private static void collect(VectorSchemaRoot root, List<Object> out) {
        for (FieldVector v : root.getFieldVectors()) {
            out.add(v.getName() + " nulls " + v.getNullCount() + " of " + v.getValueCount());
            if (v instanceof StructVector s) {
                for (FieldVector c : s.getChildrenFromFields()) {
                    out.add(c.getName() + " child nulls " + c.getNullCount());
                }
            }
            for (int i = 0; i < root.getRowCount(); i++) {
                out.add(TestBatches.normalize(v.getObject(i)));
            }
        }
    }

    @Test
    void nativeScansEqualTheHeapPathAndTheWrittenRows() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            for (LanceFileVersion v : new LanceFileVersion[] {LanceFileVersion.V2_1, LanceFileVersion.V2_2}) {
                List<Object> written = new ArrayList<>();
                for (int b = 0; b < 5; b++) {
                    try (VectorSchemaRoot root = TestBatches.batch(schema(v), a, 11, b * 1000L, 1000)) {
                        for (FieldVector fv : root.getFieldVectors()) {
                            for (int i = 0; i < root.getRowCount(); i++) {
                                written.add(TestBatches.normalize(fv.getObject(i)));
                            }
                        }
                    }
                }
                String name = "n-" + v + ".lance";
                write(store, name, v, a);
                try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, name)).block()) {
                    assertThat(r.metadata().columns().get(1).getPagesCount()).as("bool pages").isGreaterThan(1);
                    assertThat(r.metadata().columns().get(4).getPagesCount()).as("string pages").isGreaterThan(2);
                    LanceField lz = r.metadata().fields().stream().filter(x -> x.name().equals("lz")).findFirst().orElseThrow();
                    var lzPage = r.metadata().columns().get(lz.children().get(0).column()).getPages(0);
                    assertThat(io.javelin.encoding.file.PageEncodings.pageLayout("x", 0, lzPage.getEncoding()).hasFullZipLayout())
                            .as("full-zip list page").isTrue();
                    List<Object> whole = rows(r, LanceFileReader.ScanOptions.all(ROWS), a, true);
                    // batches of 1000 rows: laid out as the written batches
                    assertThat(rows(r, LanceFileReader.ScanOptions.all(1000), a, true).stream()
                            .filter(o -> !(o instanceof String s && s.contains(" nulls "))).toList()).as("written rows").isEqualTo(written);
                    assertThat(rows(r, LanceFileReader.ScanOptions.all(ROWS), a, false)).isEqualTo(whole);
                    for (int bs : new int[] {1, 64, 1000, 1999}) {
                        if (bs == 1) {
                            var o = new LanceFileReader.ScanOptions(null, 1200, 1300, 1);
                            assertThat(rows(r, o, a, true)).isEqualTo(rows(r, o, a, false));
                            continue;
                        }
                        var o = LanceFileReader.ScanOptions.all(bs);
                        assertThat(rows(r, o, a, true)).as("batch size %d", bs).isEqualTo(rows(r, o, a, false));
                    }
                    // projections and row ranges starting off a byte boundary
                    var proj = new LanceFileReader.ScanOptions(List.of("deep", "b"), 13, 4111, 777);
                    assertThat(rows(r, proj, a, true)).isEqualTo(rows(r, proj, a, false));
                    long[] idx = new SplittableRandom(7).longs(150, 0, ROWS).sorted().distinct().toArray();
                    List<Object> t1 = new ArrayList<>();
                    try (VectorSchemaRoot t = r.take(idx, null, a).block()) {
                        collect(t, t1);
                    }
                    List<Object> t2 = new ArrayList<>();
                    try (LanceFileReader heap = r.withDecode(DecodeOptions.DEFAULT.withNativeDecode(false));
                         VectorSchemaRoot t = heap.take(idx, null, a).block()) {
                        collect(t, t2);
                    }
                    assertThat(t1).isEqualTo(t2);
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    @Test
    void structAndBooleanBatchesWrapThePagesMemory() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            write(store, "z.lance", LanceFileVersion.V2_2, a);
            byte[] file = java.nio.file.Files.readAllBytes(dir.resolve("z.lance"));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "z.lance")).block()) {
                Map<PageRef, Object> pages = new HashMap<>();
                try {
                    for (String name : new String[] {"b", "bn", "st", "deep", "nn", "li", "lf", "ls", "ll", "lz", "lst", "sl", "m"}) {
                        LanceField field = r.metadata().fields().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
                        var fr = new StructuralFieldReader(r.metadata(), field);
                        long end = Math.min(64, firstPageRows(r, field));
                        for (PageRef ref : fr.pagesFor(List.<long[]>of(new long[] {0, end}))) {
                            pages.put(ref, decode(r, fr, ref, file));
                            assertThat(pages.get(ref)).as("page %s of %s", ref, name).isInstanceOf(DirectPage.class);
                        }
                        try (FieldVector v = fr.assembleDirect(List.<long[]>of(new long[] {0, end}), pages::get, a)) {
                            assertThat(v).as(name).isNotNull();
                            assertLeavesInside(v, pages, 0);
                        }
                    }
                } finally {
                    pages.values().forEach(LanceFileReader::closePage);
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    /** Several row ranges (the general path) over native pages read the same rows as over heap pages. */
    @Test
    void generalPathOverNativePagesEqualsTheHeapPages() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            write(store, "g.lance", LanceFileVersion.V2_2, a);
            byte[] file = java.nio.file.Files.readAllBytes(dir.resolve("g.lance"));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "g.lance")).block()) {
                List<long[]> ranges = List.of(new long[] {3, 40}, new long[] {45, 46}, new long[] {61, 1500}, new long[] {2990, 3003});
                for (LanceField field : r.metadata().fields()) {
                    var fr = new StructuralFieldReader(r.metadata(), field);
                    Map<PageRef, Object> nativePages = new HashMap<>();
                    Map<PageRef, Object> heapPages = new HashMap<>();
                    try {
                        for (PageRef ref : fr.pagesFor(ranges)) {
                            nativePages.put(ref, decode(r, fr, ref, file));
                            heapPages.put(ref, decodeHeap(r, fr, ref, file));
                        }
                        List<Object> got = new ArrayList<>();
                        List<Object> want = new ArrayList<>();
                        for (var pair : List.of(Map.entry(nativePages, got), Map.entry(heapPages, want))) {
                            var node = fr.assemble(ranges, pair.getKey()::get);
                            try (FieldVector v = io.javelin.encoding.arrow.ArrowAssembler.toVector(field.arrow(), node, a)) {
                                pair.getValue().add(v.getNullCount());
                                for (int i = 0; i < v.getValueCount(); i++) {
                                    pair.getValue().add(TestBatches.normalize(v.getObject(i)));
                                }
                            }
                        }
                        assertThat(got).as(field.name()).isEqualTo(want);
                    } finally {
                        nativePages.values().forEach(LanceFileReader::closePage);
                    }
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    private static Object decodeHeap(LanceFileReader r, StructuralFieldReader fr, PageRef ref, byte[] file) {
        var page = r.metadata().columns().get(ref.column()).getPages(ref.page());
        List<io.javelin.encoding.io.Buf> bufs = new ArrayList<>();
        for (int b = 0; b < page.getBufferOffsetsCount(); b++) {
            bufs.add(io.javelin.encoding.io.Buf.ofArray("z", page.getBufferOffsets(b), java.util.Arrays.copyOfRange(file,
                    (int) page.getBufferOffsets(b), (int) (page.getBufferOffsets(b) + page.getBufferSizes(b)))));
        }
        return fr.decodePage(ref, bufs); // no shared memory: the heap path
    }

    @Test
    void corruptNestedPagesFailWithCorruptFileExceptionAndReleaseEverything() throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            write(store, "c.lance", LanceFileVersion.V2_2, a);
            byte[] b = java.nio.file.Files.readAllBytes(dir.resolve("c.lance"));
            long cms = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(b.length - 40);
            java.util.Random rnd = new java.util.Random(17);
            int failed = 0;
            for (int i = 0; i < 40; i++) {
                byte[] x = b.clone();
                for (int k = 1 + rnd.nextInt(12); k > 0; k--) {
                    x[rnd.nextInt((int) cms)] = (byte) rnd.nextInt(256);
                }
                try (LanceFileReader r = LanceFileReader.open(new io.javelin.encoding.io.MemorySource("bad-" + i, x)).block()) {
                    r.scan(new LanceFileReader.ScanOptions(List.of("st", "deep", "b", "li", "ls", "lst", "sl", "m"), 0, ROWS, 700), a)
                            .doOnNext(VectorSchemaRoot::close).blockLast();
                } catch (io.javelin.encoding.CorruptFileException e) {
                    assertThat(e.getMessage()).contains("bad-" + i);
                    failed++;
                }
            }
            assertThat(failed).as("corrupt files detected").isPositive();
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    private static long firstPageRows(LanceFileReader r, LanceField f) {
        LanceField leaf = f;
        while (leaf.column() < 0) {
            leaf = leaf.children().get(0);
        }
        return r.metadata().columns().get(leaf.column()).getPages(0).getLength();
    }

    /** Leaf values, and the validity of structs with nulls, are slices of the pages' native memory. */
    private static void assertLeavesInside(FieldVector v, Map<PageRef, Object> pages, int depth) {
        if (v instanceof StructVector s) {
            if (s.getNullCount() > 0 && depth == 0) { // rows [0, 64): byte-aligned, so wrapped (items below a list may not be)
                assertInside(s.getValidityBuffer(), pages, -1);
            }
            for (FieldVector c : s.getChildrenFromFields()) {
                assertLeavesInside(c, pages, depth + 1);
            }
        } else if (v instanceof org.apache.arrow.vector.complex.ListVector l) {
            if (l.getNullCount() > 0 && depth == 0) {
                assertInside(l.getValidityBuffer(), pages, -1);
            }
            if (l.getDataVector().getValueCount() > 0) {
                assertLeavesInside((FieldVector) l.getDataVector(), pages, depth + 1);
            }
        } else if (v instanceof org.apache.arrow.vector.complex.LargeListVector l) {
            if (l.getDataVector().getValueCount() > 0) {
                assertLeavesInside((FieldVector) l.getDataVector(), pages, depth + 1);
            }
        } else if (v instanceof org.apache.arrow.vector.complex.FixedSizeListVector l) {
            assertInside(l.getDataVector().getDataBuffer(), pages, 0);
        } else {
            assertInside(v.getDataBuffer(), pages, 0);
        }
    }

    private static void assertInside(ArrowBuf buf, Map<PageRef, Object> pages, int layer) {
        long at = buf.memoryAddress();
        boolean inside = false;
        for (Object o : pages.values()) {
            DirectPage p = (DirectPage) o;
            List<MemorySegment> segs = new ArrayList<>(List.of(p.data()));
            for (int k = 0; k < p.numLayers(); k++) {
                if (layer < 0 && p.layerValidity(k) != null) { // any layer's validity (a struct's)
                    segs.add(p.layerValidity(k));
                }
            }
            for (MemorySegment seg : segs) {
                inside |= at >= seg.address() && at + buf.capacity() <= seg.address() + Math.max(seg.byteSize(), 1);
            }
        }
        assertThat(inside).as("buffer at %x of %d bytes inside a page", at, buf.capacity()).isTrue();
    }

    private static Object decode(LanceFileReader r, StructuralFieldReader fr, PageRef ref, byte[] file) {
        var page = r.metadata().columns().get(ref.column()).getPages(ref.page());
        List<io.javelin.encoding.io.Buf> bufs = new ArrayList<>();
        List<io.javelin.objectstore.memory.Buffer> owned = new ArrayList<>();
        for (int b = 0; b < page.getBufferOffsetsCount(); b++) {
            var nb = io.javelin.objectstore.memory.Buffer.allocate(Math.max(1, page.getBufferSizes(b)), "t");
            MemorySegment.copy(MemorySegment.ofArray(file), page.getBufferOffsets(b), nb.segment(), 0, page.getBufferSizes(b));
            owned.add(nb);
            bufs.add(new io.javelin.encoding.io.Buf("z", page.getBufferOffsets(b), nb.segment().asSlice(0, page.getBufferSizes(b))));
        }
        var mem = new io.javelin.encoding.io.SharedMemory(() -> owned.forEach(io.javelin.objectstore.memory.Buffer::close));
        try {
            return fr.decodePage(ref, bufs, mem);
        } finally {
            mem.release();
        }
    }
}
