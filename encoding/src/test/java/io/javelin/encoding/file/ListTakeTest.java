package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.io.ByteRange;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.io.RandomAccessSource;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.v21.PageLayout;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Takes of list pages (mini-block and full-zip, with a repetition index) in 2.1 and 2.2 files: equal to
 * slices of a full scan for random rows, and fetching exactly the chunks / rows that hold them, in one
 * scheduler request per round; corrupt repetition indexes fail typed.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class ListTakeTest {

    static final int ROWS = 3000;
    /** Mini-block pages up to this size are read whole with a take's first round (v21.PartialPlans). */
    static final long SMALL_PAGE_BYTES = 4096; // v21.PartialPlans.SMALL_PAGE_BYTES

    @TempDir
    Path dir;

    static Field f(String name, ArrowType t, boolean nullable, Field... kids) {
        return new Field(name, new FieldType(nullable, t, null), List.of(kids));
    }

    static final ArrowType I32 = new ArrowType.Int(32, true);

    /** Mini-block lists (short items, some rows long enough to span several chunks) and full-zip lists (items ≥ 256 B). */
    static Schema schema() {
        return new Schema(List.of(
                f("id", new ArrowType.Int(64, true), false),
                f("li", ArrowType.List.INSTANCE, true, f("item", I32, true)),
                f("ls", ArrowType.List.INSTANCE, true, f("item", ArrowType.Utf8.INSTANCE, true)),
                f("lz", ArrowType.List.INSTANCE, true, f("item", ArrowType.Utf8.INSTANCE, true)),
                f("lv", ArrowType.List.INSTANCE, true, f("item", new ArrowType.FixedSizeList(64), true,
                        f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false))),
                f("nn", ArrowType.List.INSTANCE, true, f("item", ArrowType.List.INSTANCE, true, f("item", I32, true)))));
    }

    /** List length of a row: null (-1), empty, short, or (every 97th row) thousands of items. */
    static int len(Random rnd, long row, int longLen) {
        if (row % 11 == 3) {
            return -1;
        }
        if (row % 7 == 2) {
            return 0;
        }
        return row % 97 == 5 ? longLen : rnd.nextInt(6) + 1;
    }

    static VectorSchemaRoot batch(Schema schema, BufferAllocator alloc, long first, int rows) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
        root.allocateNew();
        Random rnd = new Random(first * 31 + 7);
        BigIntVector id = (BigIntVector) root.getVector("id");
        ListVector li = (ListVector) root.getVector("li");
        ListVector ls = (ListVector) root.getVector("ls");
        ListVector lz = (ListVector) root.getVector("lz");
        ListVector lv = (ListVector) root.getVector("lv");
        ListVector nn = (ListVector) root.getVector("nn");
        for (int i = 0; i < rows; i++) {
            long row = first + i;
            id.setSafe(i, row);
            // li: ints, null items
            int n = len(rnd, row, 5000);
            if (n < 0) {
                li.setNull(i);
            } else {
                IntVector c = (IntVector) li.getDataVector();
                int s = li.startNewValue(i);
                for (int j = 0; j < n; j++) {
                    if ((row + j) % 5 == 1) {
                        c.setNull(s + j);
                    } else {
                        c.setSafe(s + j, (int) (row * 1000 + j));
                    }
                }
                c.setValueCount(s + n);
                li.endValue(i, n);
            }
            // ls: short strings
            n = len(rnd, row + 1, 3000);
            if (n < 0) {
                ls.setNull(i);
            } else {
                VarCharVector c = (VarCharVector) ls.getDataVector();
                int s = ls.startNewValue(i);
                for (int j = 0; j < n; j++) {
                    if ((row + j) % 6 == 4) {
                        c.setNull(s + j);
                    } else {
                        c.setSafe(s + j, ("r" + row + "." + j + (j % 3 == 0 ? "" : "xyz")).getBytes(StandardCharsets.UTF_8));
                    }
                }
                c.setValueCount(s + n);
                ls.endValue(i, n);
            }
            // lz: long strings (full-zip)
            n = Math.min(len(rnd, row + 2, 40), 4);
            if (n < 0) {
                lz.setNull(i);
            } else {
                VarCharVector c = (VarCharVector) lz.getDataVector();
                int s = lz.startNewValue(i);
                for (int j = 0; j < n; j++) {
                    if ((row + j) % 9 == 4) {
                        c.setNull(s + j);
                    } else {
                        byte[] b = new byte[300 + (int) ((row * 7 + j) % 200)];
                        Arrays.fill(b, (byte) ('a' + (row + j) % 26));
                        c.setSafe(s + j, b);
                    }
                }
                c.setValueCount(s + n);
                lz.endValue(i, n);
            }
            // lv: vectors of 64 floats (256 B, full-zip)
            n = Math.min(len(rnd, row + 3, 20), 3);
            if (n < 0) {
                lv.setNull(i);
            } else {
                FixedSizeListVector c = (FixedSizeListVector) lv.getDataVector();
                Float4Vector fv = (Float4Vector) c.getDataVector();
                int s = lv.startNewValue(i);
                for (int j = 0; j < n; j++) {
                    if ((row + j) % 8 == 5) {
                        c.setNull(s + j);
                    } else {
                        c.setNotNull(s + j);
                    }
                    for (int k = 0; k < 64; k++) {
                        fv.setSafe((s + j) * 64 + k, row + j * 0.5f + k * 0.001f);
                    }
                }
                fv.setValueCount((s + n) * 64);
                c.setValueCount(s + n);
                lv.endValue(i, n);
            }
            // nn: list<list<int>>
            n = len(rnd, row + 4, 300);
            if (n < 0) {
                nn.setNull(i);
            } else {
                ListVector inner = (ListVector) nn.getDataVector();
                IntVector c = (IntVector) inner.getDataVector();
                int s = nn.startNewValue(i);
                for (int j = 0; j < n; j++) {
                    int m = (int) ((row + j) % 4) - 1;
                    if (m < 0) {
                        inner.setNull(s + j);
                        continue;
                    }
                    int t = inner.startNewValue(s + j);
                    for (int k = 0; k < m; k++) {
                        c.setSafe(t + k, (int) (row + j + k));
                    }
                    c.setValueCount(t + m);
                    inner.endValue(s + j, m);
                }
                inner.setValueCount(s + n);
                nn.endValue(i, n);
            }
        }
        for (FieldVector v : root.getFieldVectors()) {
            v.setValueCount(rows);
        }
        root.setRowCount(rows);
        return root;
    }

    byte[] write(String version, BufferAllocator alloc) throws Exception {
        Schema schema = schema();
        try (LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 3).concatMap(b -> Mono.using(
                    () -> batch(schema, alloc, b * 1000L, 1000), Mono::just, VectorSchemaRoot::close, false), 1);
            LanceFileWriter.write(in, schema, store, "t-" + version + ".lance",
                    WriteOptions.of(LanceFileVersion.parse(version)).withPageSize(256 * 1024)).block(Duration.ofMinutes(2));
        }
        return Files.readAllBytes(dir.resolve("t-" + version + ".lance"));
    }

    /** Records every request: one {@code readAll} is one scheduler submission. */
    static final class Counting implements RandomAccessSource {
        final MemorySource inner;
        final List<List<long[]>> requests = new java.util.concurrent.CopyOnWriteArrayList<>();

        Counting(byte[] bytes) {
            inner = new MemorySource("counting", bytes);
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public Mono<Long> size() {
            return inner.size();
        }

        @Override
        public Mono<ByteRange> read(long offset, long length) {
            return readAll(List.of(new long[] {offset, length}), 0).map(l -> l.get(0));
        }

        @Override
        public Mono<List<ByteRange>> readAll(List<long[]> ranges, long priority) {
            requests.add(ranges.stream().map(long[]::clone).toList());
            return Flux.fromIterable(ranges).concatMap(r -> inner.read(r[0], r[1])).collectList();
        }

        long bytes(int request) {
            return requests.get(request).stream().mapToLong(r -> r[1]).sum();
        }
    }

    static List<List<String>> rows(VectorSchemaRoot root) {
        return ReaderApiTest.rows(root);
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void takesEqualFullScanSlicesForRandomRows(String version) throws Exception {
        try (BufferAllocator a = new RootAllocator()) {
            byte[] bytes = write(version, a);
            LanceFileReader r = LanceFileReader.open(new MemorySource("t", bytes)).block();
            List<List<String>> full = ReaderApiTest.all(r, LanceFileReader.ScanOptions.all(700), a);
            assertThat(full).hasSize(ROWS);
            Random rnd = new Random(version.hashCode());
            List<long[]> cases = new ArrayList<>();
            for (int n : new int[] {1, 2, 7, 33, 257, 1025}) {
                for (int k = 0; k < 3; k++) {
                    cases.add(rnd.longs(n, 0, ROWS).toArray()); // unsorted, repeats allowed
                }
            }
            cases.add(new long[] {0, ROWS - 1, 5, 102, 199, 5, 1000, 999, 1001}); // page edges, long rows, repeats
            long[] run = new long[300];
            for (int i = 0; i < run.length; i++) {
                run[i] = 1200 + i;
            }
            cases.add(run);
            for (long[] idx : cases) {
                try (VectorSchemaRoot t = r.take(idx, null, a).block()) {
                    List<List<String>> expected = Arrays.stream(idx).mapToObj(i -> full.get((int) i)).toList();
                    assertThat(rows(t)).as("take of %d rows", idx.length).isEqualTo(expected);
                }
            }
            // a fresh reader: every round from I/O (no cached first rounds), projected
            LanceFileReader fresh = LanceFileReader.open(new MemorySource("t", bytes)).block();
            long[] idx = rnd.longs(50, 0, ROWS).toArray();
            try (VectorSchemaRoot t = fresh.take(idx, List.of("nn", "lz"), a).block()) {
                assertThat(rows(t)).isEqualTo(Arrays.stream(idx).mapToObj(i -> List.of(full.get((int) i).get(5),
                        full.get((int) i).get(3))).toList());
            }
        }
    }

    /** The page of {@code column} (leaf column index) holding file row {@code row}, and its first row. */
    static long[] pageOf(LanceFileMetadata md, int column, long row) {
        ColumnMetadata col = md.columns().get(column);
        long start = 0;
        for (int p = 0; p < col.getPagesCount(); p++) {
            long len = col.getPages(p).getLength();
            if (row < start + len) {
                return new long[] {p, start};
            }
            start += len;
        }
        throw new AssertionError("row " + row);
    }

    static int leafColumn(LanceFileMetadata md, String name) {
        LanceField f = md.fields().stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        while (f.column() < 0) {
            f = f.children().get(0);
        }
        return f.column();
    }

    static PageLayout layout(LanceFileMetadata md, int column, int page) {
        return PageEncodings.pageLayout(md.resource(), 0, md.columns().get(column).getPages(page).getEncoding());
    }

    static ByteBuffer le(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Bytes of the chunks a mini-block take of page-local row {@code local} must read, from the spec. */
    static long expectedMiniBlockBytes(byte[] file, ColumnMetadata.Page page, PageLayout layout, long local) {
        var mb = layout.getMiniBlockLayout();
        int wordW = mb.getHasLargeChunk() ? 4 : 2;
        ByteBuffer meta = le(file);
        int nChunks = (int) (page.getBufferSizes(0) / wordW);
        long[] size = new long[nChunks];
        for (int c = 0; c < nChunks; c++) {
            long off = page.getBufferOffsets(0) + (long) c * wordW;
            long word = wordW == 2 ? Short.toUnsignedLong(meta.getShort((int) off)) : Integer.toUnsignedLong(meta.getInt((int) off));
            size[c] = ((word >>> 4) + 1) * 8;
        }
        int last = page.getBufferOffsetsCount() - 1;
        long stride = (mb.getRepetitionIndexDepth() + 1) * 8;
        long rowsBefore = 0;
        boolean prevTrailer = false;
        for (int c = 0; c < nChunks; c++) {
            long base = page.getBufferOffsets(last) + c * stride;
            long ends = meta.getLong((int) base);
            boolean trailer = meta.getLong((int) base + 8) != 0;
            long starts = ends + (trailer ? 1 : 0) - (prevTrailer ? 1 : 0);
            if (local < rowsBefore + starts) {
                long bytes = size[c];
                int e = c;
                while (trailerOf(meta, page.getBufferOffsets(last), stride, e)) {
                    bytes += size[++e];
                }
                return bytes;
            }
            rowsBefore += starts;
            prevTrailer = trailer;
        }
        throw new AssertionError("row " + local + " not in the page");
    }

    static boolean trailerOf(ByteBuffer b, long idxPos, long stride, int c) {
        return b.getLong((int) (idxPos + c * stride + 8)) != 0;
    }

    /** Bytes of a full-zip row, from its repetition index entries. */
    static long expectedFullZipBytes(byte[] file, ColumnMetadata.Page page, long local) {
        long pos = page.getBufferOffsets(1);
        int w = (int) (page.getBufferSizes(1) / (page.getLength() + 1));
        return entry(file, pos, w, local + 1) - entry(file, pos, w, local);
    }

    static long entry(byte[] file, long pos, int w, long i) {
        long v = 0;
        for (int k = w - 1; k >= 0; k--) {
            v = (v << 8) | (file[(int) (pos + i * w + k)] & 0xFF);
        }
        return v;
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void listTakesReadOnlyTheChunksAndRowsTheyNeedInTwoRequests(String version) throws Exception {
        try (BufferAllocator a = new RootAllocator()) {
            byte[] bytes = write(version, a);
            LanceFileReader whole = LanceFileReader.open(new MemorySource("t", bytes)).block();
            List<List<String>> full = ReaderApiTest.all(whole, LanceFileReader.ScanOptions.all(1000), a);
            for (String col : List.of("li", "ls", "nn", "lz", "lv")) {
                for (long row : new long[] {5, 1501, 2904, ROWS - 1}) { // 5, 2904: lists spanning chunks in li/ls
                    Counting src = new Counting(bytes);
                    LanceFileReader r = LanceFileReader.open(src).block();
                    LanceFileMetadata md = r.metadata();
                    int column = leafColumn(md, col);
                    long[] pg = pageOf(md, column, row);
                    ColumnMetadata.Page page = md.columns().get(column).getPages((int) pg[0]);
                    PageLayout layout = layout(md, column, (int) pg[0]);
                    boolean fullZip = col.equals("lz") || col.equals("lv");
                    long expected;
                    if (fullZip) {
                        assertThat(layout.hasFullZipLayout()).as(col).isTrue();
                        assertThat(layout.getFullZipLayout().getBitsRep()).as(col).isPositive();
                        expected = expectedFullZipBytes(bytes, page, row - pg[1]);
                    } else {
                        if (!layout.hasMiniBlockLayout()) {
                            continue; // e.g. an all-null or constant page: read whole (tiny)
                        }
                        assertThat(layout.getMiniBlockLayout().hasRepCompression()).as(col).isTrue();
                        expected = expectedMiniBlockBytes(bytes, page, layout, row - pg[1]);
                    }
                    int opened = src.requests.size();
                    try (VectorSchemaRoot t = r.take(new long[] {row}, List.of(col), a).block()) {
                        int c = md.fields().stream().map(LanceField::name).toList().indexOf(col);
                        assertThat(rows(t)).isEqualTo(List.of(List.of(full.get((int) row).get(c))));
                    }
                    long pageBytes = page.getBufferSizesList().stream().mapToLong(Long::longValue).sum();
                    if (!fullZip && pageBytes <= SMALL_PAGE_BYTES) {
                        // a small page comes whole with the first round, and from the cache when taken again
                        assertThat(src.requests.size() - opened).as("%s row %d: one round for a small page", col, row).isEqualTo(1);
                        int before = src.requests.size();
                        r.take(new long[] {row}, List.of(col), a).block().close();
                        assertThat(src.requests.size() - before).as("%s: small page cached", col).isZero();
                        r.close();
                        continue;
                    }
                    assertThat(src.requests.size() - opened).as("%s row %d: first round + second round", col, row).isEqualTo(2);
                    assertThat(src.bytes(opened + 1)).as("%s row %d: second round bytes", col, row).isEqualTo(expected);
                    long columnBytes = md.columns().get(column).getPagesList().stream()
                            .mapToLong(p -> p.getBufferSizesList().stream().mapToLong(Long::longValue).sum()).sum();
                    if (!col.equals("nn")) { // nn is a few chunks in all
                        assertThat(expected).as("%s: a row is a small part of its column", col).isLessThan(columnBytes / 4);
                    }
                    // again: the first round comes from the per-file cache
                    int before = src.requests.size();
                    r.take(new long[] {row}, List.of(col), a).block().close();
                    assertThat(src.requests.size() - before).as("%s: cached first round", col).isEqualTo(1);
                    assertThat(src.bytes(before)).isEqualTo(expected);
                    r.close();
                }
            }
            // a take of all columns: one request for every first round, one for every second round
            Counting src = new Counting(bytes);
            LanceFileReader r = LanceFileReader.open(src).block();
            int opened = src.requests.size();
            long[] idx = {17, 1234, 2222, 2999};
            try (VectorSchemaRoot t = r.take(idx, null, a).block()) {
                assertThat(rows(t)).isEqualTo(Arrays.stream(idx).mapToObj(i -> full.get((int) i)).toList());
            }
            assertThat(src.requests.size() - opened).isEqualTo(2);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.1", "2.2"})
    void corruptRepetitionIndexesFailTyped(String version) throws Exception {
        try (BufferAllocator a = new RootAllocator()) {
            byte[] good = write(version, a);
            LanceFileMetadata md = LanceFileReader.open(new MemorySource("t", good)).block().metadata();
            int corrupted = 0;
            for (String col : List.of("li", "ls", "nn", "lz", "lv")) {
                int column = leafColumn(md, col);
                long[] pg = pageOf(md, column, 1501);
                ColumnMetadata.Page page = md.columns().get(column).getPages((int) pg[0]);
                PageLayout layout = layout(md, column, (int) pg[0]);
                if (!layout.hasMiniBlockLayout() && !layout.hasFullZipLayout()) {
                    continue;
                }
                int idxBuf = layout.hasMiniBlockLayout() ? page.getBufferOffsetsCount() - 1 : 1;
                long pos = page.getBufferOffsets(idxBuf);
                long size = page.getBufferSizes(idxBuf);
                Random rnd = new Random(col.hashCode());
                List<byte[]> variants = new ArrayList<>();
                // all ones, all zeros, random bytes, a huge first entry, a decreasing index
                for (int v = 0; v < 5; v++) {
                    byte[] bad = good.clone();
                    for (long i = 0; i < size; i++) {
                        int at = (int) (pos + i);
                        bad[at] = switch (v) {
                            case 0 -> (byte) 0xFF;
                            case 1 -> 0;
                            case 2 -> (byte) rnd.nextInt();
                            case 3 -> i < 8 ? (byte) 0x7F : good[at];
                            default -> good[(int) (pos + size - 1 - i)];
                        };
                    }
                    variants.add(bad);
                }
                for (byte[] bad : variants) {
                    LanceFileReader r = LanceFileReader.open(new MemorySource("bad", bad)).block();
                    long[] rows = {pg[1], pg[1] + 1, 1501, pg[1] + page.getLength() - 1};
                    // a typed error: never a crash, a hang or wrong rows
                    StepVerifier.create(r.take(rows, List.of(col), a).doOnNext(VectorSchemaRoot::close))
                            .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(CorruptFileException.class))
                            .verify(Duration.ofSeconds(30));
                    corrupted++;
                }
            }
            assertThat(corrupted).isGreaterThanOrEqualTo(20);
        }
    }

    static long fieldBytes(LanceFileMetadata md, LanceField f) {
        long sum = 0;
        if (f.column() >= 0) {
            sum += md.columns().get(f.column()).getPagesList().stream()
                    .mapToLong(p -> p.getBufferSizesList().stream().mapToLong(Long::longValue).sum()).sum();
        }
        for (LanceField c : f.children()) {
            sum += fieldBytes(md, c);
        }
        return sum;
    }

    /** 2.0 lists: a take loads the offsets pages first, then only the item pages of the taken rows' items. */
    @org.junit.jupiter.api.Test
    void v20ListTakesReadOnlyTheItemPagesTheyNeed() throws Exception {
        try (BufferAllocator a = new RootAllocator()) {
            byte[] bytes = write("2.0", a);
            LanceFileReader whole = LanceFileReader.open(new MemorySource("t", bytes)).block();
            List<List<String>> full = ReaderApiTest.all(whole, LanceFileReader.ScanOptions.all(1000), a);
            long[] idx = new Random(20).longs(40, 0, ROWS).toArray();
            try (VectorSchemaRoot t = whole.take(idx, null, a).block()) {
                assertThat(rows(t)).isEqualTo(Arrays.stream(idx).mapToObj(i -> full.get((int) i)).toList());
            }
            int multiPage = 0;
            for (String col : List.of("li", "ls", "lz", "nn")) {
                Counting src = new Counting(bytes);
                LanceFileReader r = LanceFileReader.open(src).block();
                LanceField f = r.metadata().fields().stream().filter(x -> x.name().equals(col)).findFirst().orElseThrow();
                int opened = src.requests.size();
                try (VectorSchemaRoot t = r.take(new long[] {1501}, List.of(col), a).block()) {
                    int c = r.metadata().fields().stream().map(LanceField::name).toList().indexOf(col);
                    assertThat(rows(t)).isEqualTo(List.of(List.of(full.get(1501).get(c))));
                }
                long read = 0;
                java.util.Set<Long> offsets = new java.util.HashSet<>();
                for (int i = opened; i < src.requests.size(); i++) {
                    read += src.bytes(i);
                    src.requests.get(i).forEach(rg -> offsets.add(rg[0]));
                }
                long total = fieldBytes(r.metadata(), f);
                // the leaf (item) column: only the page holding the row's items, of several
                var leafPages = r.metadata().columns().get(leafColumn(r.metadata(), col)).getPagesList();
                long itemPagesRead = leafPages.stream().filter(pg -> pg.getBufferOffsetsCount() > 0
                        && offsets.contains(pg.getBufferOffsets(0))).count();
                if (leafPages.size() > 1) {
                    assertThat(itemPagesRead).as("%s: item pages read of %d", col, leafPages.size()).isEqualTo(1);
                    assertThat(read).as("%s: %d of %d bytes", col, read, total).isLessThan(total);
                    multiPage++;
                }
            }
            assertThat(multiPage).as("list columns whose items span several pages").isGreaterThanOrEqualTo(2);
        }
    }
}
