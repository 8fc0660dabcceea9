package io.javelin.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.arrow.ArrowAssembler;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.LocalFileSource;
import io.javelin.encoding.testing.CanonChecksum;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lance.file.LanceFileWriter;
import org.lance.util.Range;

/**
 * lance-core 7.0.0 writes files in 2.0, 2.1 and 2.2 (multi-page columns; encodings forced through
 * field metadata); our reader must read exactly what lance-core reads back: full scans, projections,
 * row ranges and random takes, compared value by value (canon-v1 digests per column).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FileReaderInteropTest {

    static final String[] VERSIONS = {"2.0", "2.1", "2.2"};
    static final int SCALE = Integer.getInteger("javelin.interop.scale", 1);

    Path dir;
    BufferAllocator alloc;
    final Map<String, Path> files = new LinkedHashMap<>();
    long bytesWritten;

    static Field f(String name, boolean nullable, ArrowType t, Map<String, String> md, Field... kids) {
        return new Field(name, new FieldType(nullable, t, null, md), List.of(kids));
    }

    static Field f(String name, boolean nullable, ArrowType t, Field... kids) {
        return f(name, nullable, t, null, kids);
    }

    static final ArrowType I32 = new ArrowType.Int(32, true);
    static final ArrowType I64 = new ArrowType.Int(64, true);
    static final ArrowType F32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
    static final ArrowType F64 = new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);

    /** Narrow columns, enough rows that the wider ones span several 8 MiB pages. */
    static Schema narrow(String version) {
        List<Field> fs = new ArrayList<>(List.of(
                f("id", false, I64),
                f("i32", true, I32),
                f("small", true, new ArrowType.Int(16, false)),
                f("b", true, ArrowType.Bool.INSTANCE),
                f("s", true, ArrowType.Utf8.INSTANCE),
                f("deep", true, ArrowType.List.INSTANCE,
                        f("item", true, ArrowType.Struct.INSTANCE,
                                f("a", true, I32),
                                f("b", true, ArrowType.List.INSTANCE, f("item", true, ArrowType.Utf8.INSTANCE)))),
                f("st", true, ArrowType.Struct.INSTANCE, f("x", true, F64), f("y", true, ArrowType.LargeUtf8.INSTANCE))));
        if (version.equals("2.2")) {
            fs.add(f("m", true, new ArrowType.Map(false), f("entries", false, ArrowType.Struct.INSTANCE,
                    f("key", false, ArrowType.Utf8.INSTANCE), f("value", true, I32))));
        }
        return new Schema(fs);
    }

    /** Wide values: every column spans several pages with few rows. */
    static Schema wide() {
        return new Schema(List.of(
                f("id", false, I64),
                f("vec", true, new ArrowType.FixedSizeList(1024), f("item", true, F32)),
                f("text", true, ArrowType.LargeUtf8.INSTANCE),
                f("blob", true, ArrowType.Binary.INSTANCE),
                f("nulls", true, I32),
                f("konst", true, I64),
                f("ll", true, ArrowType.LargeList.INSTANCE, f("item", true, ArrowType.Utf8.INSTANCE))));
    }

    static Map<String, String> md(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Columns with encodings forced through field metadata. */
    static Schema forced(String version) {
        List<Field> fs = new ArrayList<>(List.of(
                f("id", false, I64),
                f("s_zstd", true, ArrowType.Utf8.INSTANCE, md("lance-encoding:compression", "zstd")),
                f("s_lz4", true, ArrowType.Utf8.INSTANCE, md("lance-encoding:compression", "lz4")),
                f("i_zstd", true, I64, md("lance-encoding:compression", "zstd", "lance-encoding:compression-level", "3")),
                f("f_bss", true, F64, md("lance-encoding:bss", "on", "lance-encoding:compression", "zstd")),
                f("f32_bss", true, F32, md("lance-encoding:bss", "on", "lance-encoding:compression", "lz4")),
                f("dict_s", true, ArrowType.Utf8.INSTANCE, md("lance-encoding:dict-divisor", "2")),
                f("runs", true, I32, md("lance-encoding:rle-threshold", "1.0")),
                f("s_fullzip", true, ArrowType.Utf8.INSTANCE, md("lance-encoding:structural-encoding", "fullzip")),
                f("v_miniblock", true, new ArrowType.FixedSizeList(8), md("lance-encoding:structural-encoding", "miniblock"),
                        f("item", true, F32)),
                f("l_fullzip", true, ArrowType.List.INSTANCE, md("lance-encoding:structural-encoding", "fullzip"),
                        f("item", true, I32)),
                f("fsst", true, ArrowType.Utf8.INSTANCE, md("lance-encoding:compression", "fsst"))));
        if (!version.equals("2.0")) {
            fs.add(f("packed", true, ArrowType.Struct.INSTANCE, md("lance-encoding:packed", "true"),
                    f("x", false, I32), f("y", false, F32)));
        }
        if (!version.equals("2.2")) {
            fs.add(f("blob", true, ArrowType.LargeBinary.INSTANCE, md("lance-encoding:blob", "true")));
        }
        return new Schema(fs);
    }

    // ------------------------------------------------------------------ data generation

    record Gen(Random rnd, long rowBase, int maxStr, int maxList, double nullRate) {
    }

    static Node gen(Field field, int n, Gen g) {
        String name = field.getName();
        boolean allNull = name.equals("nulls");
        byte[] validity = null;
        if (field.isNullable() && g.nullRate > 0) {
            validity = new byte[Bits.bytesFor(n)];
            for (int i = 0; i < n; i++) {
                if (!allNull && g.rnd.nextDouble() >= g.nullRate) {
                    Bits.set(validity, i);
                }
            }
        }
        ArrowType t = field.getType();
        if (t instanceof ArrowType.Struct) {
            List<Node> kids = new ArrayList<>();
            for (Field c : field.getChildren()) {
                kids.add(gen(c, n, g));
            }
            return new Node(n, validity, null, null, kids);
        }
        if (t instanceof ArrowType.List || t instanceof ArrowType.LargeList || t instanceof ArrowType.Map) {
            long[] off = new long[n + 1];
            for (int i = 0; i < n; i++) {
                int len = (validity != null && !Bits.get(validity, i)) ? 0 : g.rnd.nextInt(g.maxList + 1);
                off[i + 1] = off[i] + len;
            }
            Node child = gen(field.getChildren().get(0), (int) off[n], g);
            return new Node(n, validity, off, null, List.of(child));
        }
        if (t instanceof ArrowType.FixedSizeList fsl) {
            Node child = gen(field.getChildren().get(0), n * fsl.getListSize(),
                    new Gen(g.rnd, g.rowBase, g.maxStr, g.maxList, 0.0));
            return new Node(n, validity, null, null, List.of(child));
        }
        if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8 || t instanceof ArrowType.Binary
                || t instanceof ArrowType.LargeBinary) {
            long[] off = new long[n + 1];
            java.io.ByteArrayOutputStream data = new java.io.ByteArrayOutputStream();
            String[] dict = {"alpha", "beta", "gamma", "delta", "", "epsilon-long-value", "zeta", "eta"};
            for (int i = 0; i < n; i++) {
                byte[] v;
                if (name.startsWith("dict") || name.equals("key")) {
                    v = (dict[g.rnd.nextInt(dict.length)] + (name.equals("key") ? i : "")).getBytes(StandardCharsets.UTF_8);
                } else {
                    int len = g.rnd.nextInt(g.maxStr + 1);
                    StringBuilder sb = new StringBuilder("r").append(g.rowBase + i).append('-');
                    while (sb.length() < len) {
                        sb.append((char) ('a' + g.rnd.nextInt(g.rnd.nextBoolean() ? 4 : 26)));
                    }
                    v = sb.toString().getBytes(StandardCharsets.UTF_8);
                    if (t instanceof ArrowType.Binary || t instanceof ArrowType.LargeBinary) {
                        v = Arrays.copyOf(v, len);
                    }
                }
                data.write(v, 0, v.length);
                off[i + 1] = data.size();
            }
            return Node.leaf(n, validity, new Values.Var(off, data.toByteArray()));
        }
        int bits = io.javelin.encoding.v21.LeafKind.of(field).bitsPerValue();
        if (bits == 1) {
            byte[] b = new byte[Bits.bytesFor(n)];
            g.rnd.nextBytes(b);
            return Node.leaf(n, validity, new Values.Fixed(b, 1, n));
        }
        int w = bits / 8;
        byte[] b = new byte[n * w];
        java.nio.ByteBuffer bb = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            long v = switch (name) {
                case "id" -> g.rowBase + i;
                case "konst" -> 42;
                case "runs" -> (g.rowBase + i) / 300;
                case "small" -> g.rnd.nextInt(1000);
                default -> g.rnd.nextLong();
            };
            if (t instanceof ArrowType.FloatingPoint fp && !name.equals("konst")) {
                v = fp.getPrecision() == FloatingPointPrecision.DOUBLE ? Double.doubleToRawLongBits(g.rnd.nextGaussian() * 1000)
                        : Float.floatToRawIntBits((float) g.rnd.nextGaussian());
            }
            for (int k = 0; k < w; k++) {
                b[i * w + k] = (byte) (v >>> (8 * Math.min(k, 7)));
            }
        }
        return Node.leaf(n, validity, new Values.Fixed(b, bits, n));
    }

    Path write(String name, String version, Schema schema, int batches, int rowsPerBatch, Gen proto) throws Exception {
        Path p = dir.resolve(name + "_" + version + ".lance");
        try (LanceFileWriter w = LanceFileWriter.open(p.toString(), alloc, null, Optional.of(version), Map.of())) {
            for (int b = 0; b < batches; b++) {
                Gen g = new Gen(new Random(proto.rnd.nextLong()), (long) b * rowsPerBatch, proto.maxStr, proto.maxList, proto.nullRate);
                List<FieldVector> vs = new ArrayList<>();
                for (Field fld : schema.getFields()) {
                    vs.add(ArrowAssembler.toVector(fld, gen(fld, rowsPerBatch, g), alloc));
                }
                try (VectorSchemaRoot root = new VectorSchemaRoot(schema.getFields(), vs, rowsPerBatch)) {
                    w.write(root);
                }
            }
        }
        bytesWritten += Files.size(p);
        return p;
    }

    @BeforeAll
    void writeFiles(@TempDir Path tmp) throws Exception {
        dir = tmp;
        alloc = new RootAllocator();
        Random rnd = new Random(2026);
        for (String v : VERSIONS) {
            files.put("narrow-" + v, write("narrow", v, narrow(v), 4, 150_000 * SCALE, new Gen(rnd, 0, 24, 4, 0.1)));
            files.put("wide-" + v, write("wide", v, wide(), 3, 1_200 * SCALE, new Gen(rnd, 0, 6000, 3, 0.05)));
            files.put("forced-" + v, write("forced", v, forced(v), 2, 10_000, new Gen(rnd, 0, 40, 3, 0.08)));
        }
        System.out.println("interop: wrote " + bytesWritten + " bytes in " + files.size() + " files");
        assertThat(bytesWritten).isLessThan(2L << 30);
    }

    @AfterAll
    void close() {
        alloc.close();
    }

    Stream<Arguments> fileNames() {
        return Stream.of(VERSIONS).flatMap(v -> Stream.of("narrow-" + v, "wide-" + v, "forced-" + v)).map(Arguments::of);
    }

    // ------------------------------------------------------------------ comparison

    static Map<String, CanonChecksum.Column> lance(Path p, List<String> cols, List<Range> ranges, BufferAllocator a) throws Exception {
        CanonChecksum sum = new CanonChecksum();
        try (org.lance.file.LanceFileReader r = org.lance.file.LanceFileReader.open(p.toString(), a);
             ArrowReader reader = r.readAll(cols, ranges, 4096)) {
            while (reader.loadNextBatch()) {
                sum.update(reader.getVectorSchemaRoot());
            }
        }
        return sum.columns();
    }

    /**
     * The columns lance-core itself can read back. lance-core 7.0.0 fails on some 2.0 files it wrote
     * ("drain was called on primitive field decoder ... never awaited" for list&lt;struct&lt;…, list&lt;utf8&gt;&gt;&gt;);
     * such columns are compared against nothing and reported.
     */
    List<String> readableByLanceCore(Path p, List<String> cols) {
        try {
            lance(p, cols, List.of(Range.of(0, 1)), alloc);
            lance(p, cols, null, alloc);
            return cols;
        } catch (Exception e) {
            List<String> ok = new ArrayList<>();
            for (String c : cols) {
                try {
                    lance(p, List.of(c), null, alloc);
                    ok.add(c);
                } catch (Exception ex) {
                    System.out.println("interop: lance-core cannot read column " + c + " of " + p.getFileName() + ": "
                            + ex.getMessage());
                }
            }
            return ok;
        }
    }

    static Map<String, CanonChecksum.Column> ours(LanceFileReader r, LanceFileReader.ScanOptions o, BufferAllocator a) {
        CanonChecksum sum = new CanonChecksum();
        r.scan(o, a).doOnNext(root -> {
            try (root) {
                sum.update(root);
            }
        }).blockLast();
        return sum.columns();
    }

    @ParameterizedTest
    @MethodSource("fileNames")
    void readsWhatLanceCoreReads(String name) throws Exception {
        Path p = files.get(name);
        try (LanceFileReader r = LanceFileReader.open(LocalFileSource.open(p)).block()) {
            List<String> all = readableByLanceCore(p, r.schema().getFields().stream().map(Field::getName)
                    .filter(c -> !c.equals("blob")).toList());
            int rows = (int) r.numRows();
            // full scan
            assertThat(ours(r, LanceFileReader.ScanOptions.all(5000).withColumns(all), alloc))
                    .isEqualTo(lance(p, all, null, alloc));
            // projection
            List<String> proj = List.of(all.get(all.size() - 1), all.get(1));
            assertThat(ours(r, LanceFileReader.ScanOptions.all(3000).withColumns(proj), alloc))
                    .isEqualTo(lance(p, proj, null, alloc));
            // range
            int s = rows / 3 + 17;
            int e = Math.min(rows, s + rows / 4 + 5);
            assertThat(ours(r, LanceFileReader.ScanOptions.all(1000).withColumns(all).withRange(s, e), alloc))
                    .isEqualTo(lance(p, all, List.of(Range.of(s, e)), alloc));
            // random takes (sorted, distinct)
            long[] idx = new Random(name.hashCode()).longs(300, 0, rows).sorted().distinct().toArray();
            List<Range> ranges = Arrays.stream(idx).mapToObj(i -> Range.of((int) i, (int) i + 1)).toList();
            CanonChecksum taken = new CanonChecksum();
            try (VectorSchemaRoot t = r.take(idx, all, alloc).block()) {
                taken.update(t);
            }
            assertThat(taken.columns()).isEqualTo(lance(p, all, ranges, alloc));
            assertThat(r.metadata().columns().stream().mapToInt(c -> c.getPagesCount()).max().orElse(0))
                    .as("some column spans several pages").isGreaterThan(name.startsWith("forced") ? 0 : 1);
        }
    }

    /** Counts the bytes our reader asks for (one {@code readAll} is one page-I/O scheduler request). */
    static final class CountingSource implements io.javelin.encoding.io.RandomAccessSource {
        final io.javelin.encoding.io.RandomAccessSource inner;
        final java.util.concurrent.atomic.AtomicLong bytes = new java.util.concurrent.atomic.AtomicLong();
        final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();

        CountingSource(io.javelin.encoding.io.RandomAccessSource inner) {
            this.inner = inner;
        }

        @Override
        public String name() {
            return inner.name();
        }

        @Override
        public reactor.core.publisher.Mono<Long> size() {
            return inner.size();
        }

        @Override
        public reactor.core.publisher.Mono<io.javelin.encoding.io.ByteRange> read(long offset, long length) {
            requests.incrementAndGet();
            bytes.addAndGet(length);
            return inner.read(offset, length);
        }

        @Override
        public reactor.core.publisher.Mono<List<io.javelin.encoding.io.ByteRange>> readAll(List<long[]> ranges, long priority) {
            requests.incrementAndGet();
            ranges.forEach(r -> bytes.addAndGet(r[1]));
            return inner.readAll(ranges, priority);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    Stream<Arguments> structuralFiles() {
        return Stream.of("2.1", "2.2").flatMap(v -> Stream.of("narrow-" + v, "wide-" + v, "forced-" + v)).map(Arguments::of);
    }

    /**
     * Takes of list columns (mini-block and full-zip pages with a repetition index, lance-core-written, multi-page)
     * equal lance-core's take of the same rows, including runs of neighbours and page edges, and read only a small
     * part of the column in two requests.
     */
    @ParameterizedTest
    @MethodSource("structuralFiles")
    void listTakesEqualLanceCoreAndReadOnlyWhatTheyNeed(String name) throws Exception {
        Path p = files.get(name);
        try (LanceFileReader meta = LanceFileReader.open(LocalFileSource.open(p)).block()) {
            List<String> lists = meta.schema().getFields().stream()
                    .filter(f -> f.getType() instanceof ArrowType.List || f.getType() instanceof ArrowType.LargeList
                            || f.getType() instanceof ArrowType.Map)
                    .map(Field::getName).toList();
            lists = readableByLanceCore(p, lists);
            assertThat(lists).as(name).isNotEmpty();
            int rows = (int) meta.numRows();
            Random rnd = new Random(name.hashCode() * 31L);
            java.util.TreeSet<Long> picked = new java.util.TreeSet<>();
            for (int i = 0; i < 40; i++) {
                picked.add((long) rnd.nextInt(rows));
            }
            for (long s = rows / 2; s < rows / 2 + 25; s++) {
                picked.add(s); // a run of neighbours
            }
            picked.add(0L);
            picked.add((long) rows - 1);
            // the first and last row of every page of the first list column
            var col = meta.metadata().columns();
            for (var f : meta.metadata().fields()) {
                if (f.name().equals(lists.get(0))) {
                    var leaf = f;
                    while (leaf.column() < 0) {
                        leaf = leaf.children().get(0);
                    }
                    long start = 0;
                    for (var page : col.get(leaf.column()).getPagesList()) {
                        if (page.getLength() > 0) {
                            picked.add(start);
                            picked.add(start + page.getLength() - 1);
                        }
                        start += page.getLength();
                    }
                }
            }
            long[] idx = picked.stream().mapToLong(Long::longValue).toArray();
            List<Range> ranges = Arrays.stream(idx).mapToObj(i -> Range.of((int) i, (int) i + 1)).toList();
            CanonChecksum taken = new CanonChecksum();
            try (VectorSchemaRoot t = meta.take(idx, lists, alloc).block()) {
                taken.update(t);
            }
            assertThat(taken.columns()).as(name).isEqualTo(lance(p, lists, ranges, alloc));
            // I/O of a 3-row take of each list column alone, on a fresh reader
            for (String c : lists) {
                CountingSource src = new CountingSource(LocalFileSource.open(p));
                try (LanceFileReader r = LanceFileReader.open(src).block()) {
                    long openBytes = src.bytes.get();
                    long openRequests = src.requests.get();
                    long[] three = {idx[1], rows / 2 + 3, idx[idx.length - 2]};
                    CanonChecksum ours = new CanonChecksum();
                    try (VectorSchemaRoot t = r.take(three, List.of(c), alloc).block()) {
                        ours.update(t);
                    }
                    assertThat(ours.columns()).isEqualTo(lance(p, List.of(c),
                            Arrays.stream(three).mapToObj(i -> Range.of((int) i, (int) i + 1)).toList(), alloc));
                    long columnBytes = 0;
                    for (var f : r.metadata().fields()) {
                        if (f.name().equals(c)) {
                            columnBytes = leafBytes(r, f);
                        }
                    }
                    long read = src.bytes.get() - openBytes;
                    System.out.println("interop: take of 3 rows of " + name + "." + c + " read " + read + " of " + columnBytes
                            + " column bytes in " + (src.requests.get() - openRequests) + " requests");
                    if (columnBytes > 1 << 20) {
                        assertThat(read).as(name + "." + c).isLessThan(columnBytes / 8);
                    }
                    assertThat(src.requests.get() - openRequests).as(name + "." + c + " requests").isLessThanOrEqualTo(2);
                }
            }
        }
    }

    static long leafBytes(LanceFileReader r, io.javelin.encoding.file.LanceField f) {
        if (f.column() >= 0) {
            return r.metadata().columns().get(f.column()).getPagesList().stream()
                    .mapToLong(pg -> pg.getBufferSizesList().stream().mapToLong(Long::longValue).sum()).sum();
        }
        long sum = 0;
        for (var c : f.children()) {
            sum += leafBytes(r, c);
        }
        return sum;
    }
}
