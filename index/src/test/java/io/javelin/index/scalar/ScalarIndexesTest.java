package io.javelin.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.kernel.SplitBlockBloomFilter;
import io.javelin.index.kernel.XxHash64;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ScalarIndexesTest {

    BufferAllocator allocator;

    @BeforeEach
    void open() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() {
        slices.forEach(VectorSchemaRoot::close);
        allocator.close(); // fails the test on leaked Arrow buffers
    }

    static final double NEG_NAN = Double.longBitsToDouble(0xFFF8000000000000L);
    static final double[] SPECIAL = {Double.NaN, NEG_NAN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0, -0.0, 1e-300};

    FieldVector randomColumn(String kind, int n, Random rnd) {
        switch (kind) {
            case "int64" -> {
                BigIntVector v = new BigIntVector("v", allocator);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    if (rnd.nextInt(20) == 0) {
                        v.setNull(i);
                    } else {
                        v.set(i, rnd.nextInt(300) - 150);
                    }
                }
                v.setValueCount(n);
                return v;
            }
            case "float64" -> {
                Float8Vector v = new Float8Vector("v", allocator);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    int c = rnd.nextInt(30);
                    if (c == 0) {
                        v.setNull(i);
                    } else if (c == 1) {
                        v.set(i, SPECIAL[rnd.nextInt(SPECIAL.length)]);
                    } else {
                        v.set(i, (rnd.nextInt(200) - 100) / 4.0);
                    }
                }
                v.setValueCount(n);
                return v;
            }
            default -> {
                VarCharVector v = new VarCharVector("v", allocator);
                v.allocateNew(n);
                for (int i = 0; i < n; i++) {
                    if (rnd.nextInt(20) == 0) {
                        v.setNull(i);
                    } else {
                        String s = "k" + rnd.nextInt(120) + (rnd.nextInt(40) == 0 ? "é😀" : "");
                        v.setSafe(i, s.getBytes(StandardCharsets.UTF_8));
                    }
                }
                v.setValueCount(n);
                return v;
            }
        }
    }

    static long[] rowIds(int n) {
        long[] rows = new long[n];
        for (int i = 0; i < n; i++) {
            rows[i] = i < n / 2 ? i : RowAddrTreeMap.address(3, i - n / 2);
        }
        return rows;
    }

    List<SargableQuery> randomQueries(FieldVector col, Random rnd) {
        List<SargableQuery> qs = new ArrayList<>();
        int n = col.getValueCount();
        for (int i = 0; i < 25; i++) {
            Object a = ScalarKind.get(col, rnd.nextInt(n)), b = ScalarKind.get(col, rnd.nextInt(n));
            qs.add(new SargableQuery.Equals(a));
            qs.add(new SargableQuery.Range(a, rnd.nextBoolean(), b, rnd.nextBoolean()));
            qs.add(new SargableQuery.Range(null, false, b, rnd.nextBoolean()));
            qs.add(new SargableQuery.Range(a, true, null, false));
            qs.add(new SargableQuery.IsIn(Arrays.asList(a, b, ScalarKind.get(col, rnd.nextInt(n)))));
        }
        qs.add(new SargableQuery.IsNull());
        qs.add(new SargableQuery.Equals(col.getField().getType() instanceof ArrowType.Utf8 ? "absent" : (Object) 12345678L));
        return qs;
    }

    static RowAddrTreeMap bruteForce(FieldVector col, long[] rows, SargableQuery query) {
        ScalarKind kind = ScalarKind.of(col.getField().getType(), "t");
        SargableQuery q = SargableQuery.coerce(query, kind);
        RowAddrTreeMap out = new RowAddrTreeMap();
        for (int i = 0; i < col.getValueCount(); i++) {
            Object v = ScalarKind.get(col, i);
            boolean m = v == null
                    ? q instanceof SargableQuery.IsNull || (q instanceof SargableQuery.IsIn in && in.values().stream().anyMatch(x -> x == null))
                    : SargableQuery.matches(q, kind, v);
            if (m) {
                out.add(rows[i]);
            }
        }
        return out;
    }

    @Test
    void btreePagesAreSortedAndQueriesMatchBruteForce() {
        Random rnd = new Random(42);
        for (String kind : List.of("int64", "float64", "utf8")) {
            int n = 3000 + rnd.nextInt(500);
            long[] rows = rowIds(n);
            try (FieldVector col = randomColumn(kind, n, rnd);
                 BTreeIndex.Built built = BTreeIndex.build(col, rows, allocator, 256)) {
                VectorSchemaRoot data = built.pageData();
                assertThat(built.pageLookup().getSchema().getCustomMetadata())
                        .containsEntry("batch_size", "256").containsEntry("range_partitioned", "false");
                assertThat(data.getSchema().getFields()).extracting(f -> f.getName() + ":" + f.isNullable())
                        .containsExactly("values:true", "ids:false");
                assertThat(built.pageLookup().getSchema().getFields()).extracting(f -> f.getName())
                        .containsExactly("min", "max", "null_count", "page_idx");
                // sorted nulls first, then total order, ties by row id
                ScalarKind sk = ScalarKind.of(col.getField().getType(), "t");
                for (int r = 1; r < n; r++) {
                    Object a = ScalarKind.get(data.getVector("values"), r - 1), b = ScalarKind.get(data.getVector("values"), r);
                    assertThat(sk.nullsFirst().compare(a, b)).as(kind + " row " + r).isLessThanOrEqualTo(0);
                }
                BTreeIndex idx = BTreeIndex.load(built.pageLookup(), null, "t");
                assertThat(idx.pages()).hasSize((n + 255) / 256);
                for (SargableQuery q : randomQueries(col, rnd)) {
                    SearchResult res = idx.search(q, p -> slice(data, p * 256, Math.min(n, (p + 1) * 256)), "t");
                    assertThat(res).isInstanceOf(SearchResult.Exact.class);
                    assertThat(res.rows().toArray()).as(kind + " " + q).containsExactly(bruteForce(col, rows, q).toArray());
                }
            }
        }
    }

    /** The reader hands over one page; here a copy of rows [from, to). */
    private final List<VectorSchemaRoot> slices = new ArrayList<>();

    VectorSchemaRoot slice(VectorSchemaRoot data, int from, int to) {
        VectorSchemaRoot s = data.slice(from, to - from);
        slices.add(s);
        return s;
    }


    @Test
    void floatTotalOrderPutsNegativeNanFirstAndNanLast() {
        ScalarKind k = ScalarKind.FLOAT;
        List<Double> sorted = new ArrayList<>(List.of(Double.NaN, 1.0, -0.0, 0.0, Double.NEGATIVE_INFINITY, NEG_NAN, Double.POSITIVE_INFINITY));
        sorted.sort(k::compare);
        assertThat(Double.doubleToRawLongBits(sorted.get(0))).isNegative(); // -NaN
        assertThat(sorted.subList(1, 6)).containsExactly(Double.NEGATIVE_INFINITY, -0.0, 0.0, 1.0, Double.POSITIVE_INFINITY);
        assertThat(sorted.get(6)).isNaN();
    }

    @Test
    void bitmapAndLabelListMatchBruteForce() {
        Random rnd = new Random(7);
        for (String kind : List.of("int64", "float64", "utf8")) {
            int n = 2000;
            long[] rows = rowIds(n);
            try (FieldVector col = randomColumn(kind, n, rnd)) {
                BitmapIndex built = BitmapIndex.build(col, rows);
                try (VectorSchemaRoot batch = built.toBatch(allocator)) {
                    assertThat(batch.getSchema().getCustomMetadata()).containsKey("lance:index_stats");
                    assertThat(batch.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("keys", "bitmaps");
                    BitmapIndex idx = BitmapIndex.load(batch, "t");
                    for (SargableQuery q : randomQueries(col, rnd)) {
                        assertThat(idx.search(q).rows().toArray()).as(kind + " " + q).containsExactly(bruteForce(col, rows, q).toArray());
                    }
                }
            }
        }
        // LabelList
        try (ListVector lists = ListVector.empty("labels", allocator)) {
            UnionListWriter w = lists.getWriter();
            int n = 500;
            List<List<Integer>> truth = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                w.setPosition(i);
                w.startList();
                List<Integer> l = new ArrayList<>();
                int len = rnd.nextInt(4);
                for (int j = 0; j < len; j++) {
                    int x = rnd.nextInt(10);
                    l.add(x);
                    w.writeInt(x);
                }
                w.endList();
                truth.add(l);
            }
            w.setValueCount(n);
            long[] rows = rowIds(n);
            BitmapIndex ll = BitmapIndex.buildLabelList(lists, rows);
            try (VectorSchemaRoot batch = ll.toBatch(allocator)) {
                BitmapIndex idx = BitmapIndex.load(batch, "t");
                for (int t = 0; t < 30; t++) {
                    List<Object> labels = List.of(rnd.nextInt(12), rnd.nextInt(12));
                    RowAddrTreeMap any = new RowAddrTreeMap(), all = new RowAddrTreeMap();
                    for (int i = 0; i < n; i++) {
                        List<Integer> l = truth.get(i);
                        if (labels.stream().anyMatch(l::contains)) {
                            any.add(rows[i]);
                        }
                        if (labels.stream().allMatch(l::contains)) {
                            all.add(rows[i]);
                        }
                    }
                    assertThat(idx.hasAnyLabel(labels).rows().toArray()).containsExactly(any.toArray());
                    assertThat(idx.hasAllLabels(labels).rows().toArray()).containsExactly(all.toArray());
                }
            }
        }
    }

    @Test
    void zoneMapAndBloomFilterNeverMissARow() {
        Random rnd = new Random(9);
        for (String kind : List.of("int64", "float64", "utf8")) {
            try (FieldVector f0 = randomColumn(kind, 3000, rnd); FieldVector f1 = randomColumn(kind, 1700, rnd)) {
                List<ZoneMapIndex.FragmentValues> frags = List.of(new ZoneMapIndex.FragmentValues(0, f0), new ZoneMapIndex.FragmentValues(1, f1));
                ZoneMapIndex zm = ZoneMapIndex.build(frags, 512);
                BloomFilterIndex bf = BloomFilterIndex.build(frags, 512, 0.01);
                try (VectorSchemaRoot zb = zm.toBatch(allocator); VectorSchemaRoot bb = bf.toBatch(allocator)) {
                    assertThat(zb.getSchema().getCustomMetadata()).containsEntry("rows_per_zone", "512");
                    assertThat(bb.getSchema().getCustomMetadata()).containsEntry("bloomfilter_item", "512");
                    ZoneMapIndex zl = ZoneMapIndex.load(zb, "t");
                    BloomFilterIndex bl = BloomFilterIndex.load(bb, f0.getField().getType(), "t");
                    assertThat(zl.zones()).hasSize(6 + 4);
                    long[] rows0 = new long[3000], rows1 = new long[1700];
                    for (int i = 0; i < 3000; i++) {
                        rows0[i] = i;
                    }
                    for (int i = 0; i < 1700; i++) {
                        rows1[i] = RowAddrTreeMap.address(1, i);
                    }
                    int bloomSkipped = 0, bloomProbes = 0;
                    for (SargableQuery q : randomQueries(f0, rnd)) {
                        RowAddrTreeMap truth = RowAddrTreeMap.or(bruteForce(f0, rows0, q), bruteForce(f1, rows1, q));
                        SearchResult z = zl.search(q);
                        assertThat(z).isInstanceOf(SearchResult.AtMost.class);
                        assertThat(RowAddrTreeMap.andNot(truth, z.rows()).isEmpty()).as(kind + " zonemap " + q).isTrue();
                        if (!(q instanceof SargableQuery.Range)) {
                            SearchResult b = bl.search(q);
                            assertThat(RowAddrTreeMap.andNot(truth, b.rows()).isEmpty()).as(kind + " bloom " + q).isTrue();
                            bloomProbes++;
                            if (b.rows().cardinality() < 4700) {
                                bloomSkipped++;
                            }
                        }
                    }
                    assertThat(bloomSkipped).as("bloom filters prune some zones").isPositive();
                    assertThat(bloomProbes).isPositive();
                }
            }
        }
    }

    @Test
    void xxHash64AndSbbfMatchLanceVectors() {
        assertThat(XxHash64.hash(new byte[0], 0)).isEqualTo(Long.parseUnsignedLong("17241709254077376921"));
        assertThat(XxHash64.hash("abc".getBytes(StandardCharsets.US_ASCII), 0)).isEqualTo(0x44BC2CF5AD770999L);
        byte[] longer = "Nobody inspects the spammish repetition and more bytes to pass 32".getBytes(StandardCharsets.US_ASCII);
        assertThat(XxHash64.hash(longer, 0)).isEqualTo(XxHash64.hash(longer, 0, longer.length, 0));
        long[][] table = {{10, 57}, {100, 577}, {1000, 5772}};
        for (long[] t : table) {
            assertThat(SplitBlockBloomFilter.numBitsFromNdvFpp(t[0], 0.1)).isEqualTo(t[1]);
        }
        assertThat(SplitBlockBloomFilter.numBitsFromNdvFpp(1000, 0.01)).isEqualTo(9681);
        assertThat(SplitBlockBloomFilter.numBitsFromNdvFpp(1000, 0.001)).isEqualTo(14607);
        SplitBlockBloomFilter f = SplitBlockBloomFilter.withNumBytes(1024);
        assertThat(f.numBlocks()).isEqualTo(32);
        for (int i = 0; i < 1000; i++) {
            byte[] le = {(byte) i, (byte) (i >> 8), (byte) (i >> 16), (byte) (i >> 24)};
            f.insert(le);
            assertThat(f.check(le)).isTrue();
        }
        assertThat(SplitBlockBloomFilter.fromBytes(f.toBytes()).toBytes()).isEqualTo(f.toBytes());
        assertThat(SplitBlockBloomFilter.withNumBytes(33).toBytes()).hasSize(64);
    }

    @Test
    void corruptTablesAreRejected() {
        try (FieldVector col = randomColumn("int64", 1000, new Random(3));
             BTreeIndex.Built built = BTreeIndex.build(col, rowIds(1000), allocator, 100)) {
            VectorSchemaRoot lookup = built.pageLookup();
            // duplicate page_idx
            ((UInt4Vector) lookup.getVector("page_idx")).set(1, 0);
            assertThatThrownBy(() -> BTreeIndex.load(lookup, null, "lk")).isInstanceOf(CorruptIndexException.class)
                    .hasMessageContaining("page_idx 0 duplicated").hasMessageContaining("resource=lk");
            ((UInt4Vector) lookup.getVector("page_idx")).set(1, 1);
            BTreeIndex ok = BTreeIndex.load(lookup, null, "lk");
            assertThatThrownBy(() -> BTreeIndex.load(lookup, Map.of("batch_size", "x"), "lk")).isInstanceOf(CorruptIndexException.class);
            assertThatThrownBy(() -> BTreeIndex.load(lookup, Map.of("batch_size", "4096", "range_partitioned", "true"), "lk"))
                    .isInstanceOf(CorruptIndexException.class);
            // a page whose values column has another type
            try (VarCharVector other = new VarCharVector("values", allocator)) {
                other.allocateNew(1);
                other.setSafe(0, "x".getBytes(StandardCharsets.UTF_8));
                other.setValueCount(1);
                VectorSchemaRoot wrong = VectorSchemaRoot.of(other);
                assertThatThrownBy(() -> ok.searchPage(wrong, new SargableQuery.Equals(1L), "pd")).isInstanceOf(CorruptIndexException.class);
            }
        }
        try (FieldVector col = randomColumn("utf8", 100, new Random(4))) {
            BitmapIndex b = BitmapIndex.build(col, rowIds(100));
            try (VectorSchemaRoot batch = b.toBatch(allocator)) {
                org.apache.arrow.vector.VarBinaryVector bms = (org.apache.arrow.vector.VarBinaryVector) batch.getVector("bitmaps");
                bms.setSafe(1, new byte[] {9, 0, 0, 0, 1});
                assertThatThrownBy(() -> BitmapIndex.load(batch, "bm")).isInstanceOf(CorruptIndexException.class);
            }
        }
        try (FieldVector col = randomColumn("int64", 100, new Random(5))) {
            BloomFilterIndex bf = BloomFilterIndex.build(List.of(new ZoneMapIndex.FragmentValues(0, col)), 64, 0.01);
            try (VectorSchemaRoot batch = bf.toBatch(allocator)) {
                ((org.apache.arrow.vector.VarBinaryVector) batch.getVector("bloom_filter_data")).setSafe(0, new byte[31]);
                assertThatThrownBy(() -> BloomFilterIndex.load(batch, col.getField().getType(), "bf"))
                        .isInstanceOf(CorruptIndexException.class).hasMessageContaining("multiple of 32");
            }
        }
    }
}
