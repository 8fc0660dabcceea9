package io.javelin.index.scalar;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Lance's BTree scalar index. {@code page_data.lance} holds every value sorted nulls first, then
 * ascending (floats in IEEE total order; ties by row address), with its row address:
 * {@code values: T?, ids: uint64}. Page {@code p} is rows {@code [p·batch_size, (p+1)·batch_size)}
 * and every page but the last is full. {@code page_lookup.lance} has one row per page:
 * {@code min: T?, max: T?, null_count: uint32, page_idx: uint32}, schema metadata
 * {@code batch_size="4096"} and {@code range_partitioned="false"}. Results are always Exact.
 *
 * <p>This class holds the lookup table; pages are fetched by the caller (the reader reads rows
 * {@code [p·batch_size, …)} of page_data) and scanned with {@link #searchPage}.
 */
public final class BTreeIndex {

    public static final int DEFAULT_BATCH_SIZE = 4096;
    public static final String PAGE_DATA_FILE = "page_data.lance";
    public static final String PAGE_LOOKUP_FILE = "page_lookup.lance";

    /** One page_lookup row. min/max are null for an all-null page. */
    public record Page(Object min, Object max, long nullCount, int pageIdx) {
    }

    /** The two tables a build produces, ready to be written as Lance files (caller closes them). */
    public record Built(VectorSchemaRoot pageData, VectorSchemaRoot pageLookup) implements AutoCloseable {
        @Override
        public void close() {
            pageData.close();
            pageLookup.close();
        }
    }

    private final ScalarKind kind;
    private final ArrowType valueType;
    private final int batchSize;
    private final List<Page> pages; // ascending page_idx

    private BTreeIndex(ScalarKind kind, ArrowType valueType, int batchSize, List<Page> pages) {
        this.kind = kind;
        this.valueType = valueType;
        this.batchSize = batchSize;
        this.pages = pages;
    }

    public int batchSize() {
        return batchSize;
    }

    public List<Page> pages() {
        return pages;
    }

    public ScalarKind kind() {
        return kind;
    }

    // ------------------------------------------------------------------ build

    public static Built build(FieldVector values, long[] rowIds, BufferAllocator allocator) {
        return build(values, rowIds, allocator, DEFAULT_BATCH_SIZE);
    }

    /** Sorts {@code values} (with their row addresses) and cuts them into {@code batchSize}-row pages. */
    public static Built build(FieldVector values, long[] rowIds, BufferAllocator allocator, int batchSize) {
        int n = values.getValueCount();
        if (rowIds.length != n) {
            throw new IllegalArgumentException("Got " + rowIds.length + " row ids for " + n + " values");
        }
        ArrowType type = values.getField().getType();
        ScalarKind kind = ScalarKind.of(type, "build");
        Object[] vals = new Object[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            vals[i] = ScalarKind.get(values, i);
            order[i] = i;
        }
        var cmp = kind.nullsFirst();
        Arrays.sort(order, (a, b) -> {
            int c = cmp.compare(vals[a], vals[b]);
            return c != 0 ? c : Long.compareUnsigned(rowIds[a], rowIds[b]);
        });
        Schema dataSchema = new Schema(List.of(
                new Field("values", FieldType.nullable(type), null),
                new Field("ids", FieldType.notNullable(new ArrowType.Int(64, false)), null)));
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("batch_size", Integer.toString(batchSize));
        meta.put("range_partitioned", "false");
        Schema lookupSchema = new Schema(List.of(
                new Field("min", FieldType.nullable(type), null),
                new Field("max", FieldType.nullable(type), null),
                new Field("null_count", FieldType.notNullable(new ArrowType.Int(32, false)), null),
                new Field("page_idx", FieldType.notNullable(new ArrowType.Int(32, false)), null)), meta);
        VectorSchemaRoot data = VectorSchemaRoot.create(dataSchema, allocator);
        VectorSchemaRoot lookup = VectorSchemaRoot.create(lookupSchema, allocator);
        try {
            FieldVector dv = data.getVector("values");
            UInt8Vector ids = (UInt8Vector) data.getVector("ids");
            for (int r = 0; r < n; r++) {
                int i = order[r];
                ScalarKind.set(dv, r, vals[i]);
                ids.setSafe(r, rowIds[i]);
            }
            dv.setValueCount(n);
            ids.setValueCount(n);
            data.setRowCount(n);
            int numPages = (n + batchSize - 1) / batchSize;
            FieldVector mn = lookup.getVector("min"), mx = lookup.getVector("max");
            UInt4Vector nc = (UInt4Vector) lookup.getVector("null_count"), pi = (UInt4Vector) lookup.getVector("page_idx");
            for (int p = 0; p < numPages; p++) {
                int from = p * batchSize, to = Math.min(n, from + batchSize);
                int nulls = 0;
                Object min = null;
                for (int r = from; r < to; r++) {
                    Object v = vals[order[r]];
                    if (v == null) {
                        nulls++;
                    } else if (min == null) {
                        min = v;
                    }
                }
                Object max = vals[order[to - 1]];
                ScalarKind.set(mn, p, min);
                ScalarKind.set(mx, p, max);
                nc.setSafe(p, nulls);
                pi.setSafe(p, p);
            }
            mn.setValueCount(numPages);
            mx.setValueCount(numPages);
            nc.setValueCount(numPages);
            pi.setValueCount(numPages);
            lookup.setRowCount(numPages);
            return new Built(data, lookup);
        } catch (RuntimeException e) {
            data.close();
            lookup.close();
            throw e;
        }
    }

    // ------------------------------------------------------------------ load

    /** Loads the lookup table (schema metadata taken from {@code lookup}'s schema when {@code metadata} is null). */
    public static BTreeIndex load(VectorSchemaRoot lookup, Map<String, String> metadata, String resource) {
        Map<String, String> meta = metadata != null ? metadata : lookup.getSchema().getCustomMetadata();
        FieldVector mn = lookup.getVector("min"), mx = lookup.getVector("max");
        FieldVector nc = lookup.getVector("null_count"), pi = lookup.getVector("page_idx");
        CorruptIndexException.check(mn != null && mx != null && nc != null && pi != null, resource,
                "page_lookup must have columns min, max, null_count, page_idx; has %s", lookup.getSchema().getFields());
        CorruptIndexException.check(mn.getField().getType().equals(mx.getField().getType()), resource,
                "min type %s != max type %s", mn.getField().getType(), mx.getField().getType());
        CorruptIndexException.check(nc instanceof UInt4Vector && pi instanceof UInt4Vector, resource,
                "null_count/page_idx must be uint32, are %s/%s", nc.getField().getType(), pi.getField().getType());
        int batchSize;
        try {
            batchSize = Integer.parseInt(meta == null ? "" + DEFAULT_BATCH_SIZE : meta.getOrDefault("batch_size", "" + DEFAULT_BATCH_SIZE));
        } catch (NumberFormatException e) {
            throw new CorruptIndexException(resource, "batch_size is not a number: " + meta.get("batch_size"));
        }
        CorruptIndexException.check(batchSize > 0, resource, "batch_size must be > 0, is %d", batchSize);
        CorruptIndexException.check(meta == null || !"true".equals(meta.get("range_partitioned")), resource,
                "range-partitioned BTree layouts are not supported");
        ScalarKind kind = ScalarKind.of(mn.getField().getType(), resource);
        int rows = lookup.getRowCount();
        Page[] byIdx = new Page[rows];
        for (int r = 0; r < rows; r++) {
            long idx = Integer.toUnsignedLong(((UInt4Vector) pi).get(r));
            CorruptIndexException.check(idx < rows && byIdx[(int) idx] == null, resource, "page_idx %d duplicated or out of range", idx);
            Object min = ScalarKind.get(mn, r), max = ScalarKind.get(mx, r);
            CorruptIndexException.check((min == null) == (max == null), resource, "page %d has only one of min/max", idx);
            CorruptIndexException.check(min == null || kind.compare(min, max) <= 0, resource, "page %d has min > max", idx);
            byIdx[(int) idx] = new Page(min, max, Integer.toUnsignedLong(((UInt4Vector) nc).get(r)), (int) idx);
        }
        return new BTreeIndex(kind, mn.getField().getType(), batchSize, List.of(byIdx));
    }

    // ------------------------------------------------------------------ query

    /** Pages that can hold rows matching {@code q}, ascending. */
    public int[] pagesFor(SargableQuery query) {
        SargableQuery q = SargableQuery.coerce(query, kind);
        BitSet hit = new BitSet(pages.size());
        for (Page p : pages) {
            boolean match = switch (q) {
                case SargableQuery.IsNull n -> p.nullCount() > 0;
                case SargableQuery.Equals e -> e.value() != null && overlaps(p, e.value(), e.value());
                case SargableQuery.Range r -> overlaps(p, r.lo(), r.hi());
                case SargableQuery.IsIn in -> in.values().stream().anyMatch(v -> v == null ? p.nullCount() > 0 : overlaps(p, v, v));
            };
            if (match) {
                hit.set(p.pageIdx());
            }
        }
        return hit.stream().toArray();
    }

    /** Does the page's [min, max] intersect [lo, hi] (null = unbounded)? Bounds are treated inclusively. */
    private boolean overlaps(Page p, Object lo, Object hi) {
        if (p.min() == null) {
            return false;
        }
        return (lo == null || kind.compare(p.max(), lo) >= 0) && (hi == null || kind.compare(p.min(), hi) <= 0);
    }

    /** A page_data page decoded for repeated queries (what the index cache keeps). */
    public record DecodedPage(Object[] values, long[] ids) {
        /** Rough heap size, for the cache budget. */
        public long bytes() {
            return 32L * ids.length + 64;
        }
    }

    /** Checks and decodes one page_data batch. */
    public DecodedPage decodePage(VectorSchemaRoot page, String resource) {
        FieldVector values = page.getVector("values");
        FieldVector ids = page.getVector("ids");
        CorruptIndexException.check(values != null && ids instanceof UInt8Vector, resource,
                "page_data must have values and ids: uint64, has %s", page.getSchema().getFields());
        CorruptIndexException.check(values.getField().getType().equals(valueType), resource,
                "page_data values type %s != lookup type %s", values.getField().getType(), valueType);
        int n = page.getRowCount();
        CorruptIndexException.check(n <= batchSize, resource, "page has %d rows, batch_size is %d", n, batchSize);
        UInt8Vector idv = (UInt8Vector) ids;
        Object[] vals = new Object[n];
        long[] rows = new long[n];
        for (int r = 0; r < n; r++) {
            CorruptIndexException.check(!idv.isNull(r), resource, "null id at page row %d", r);
            vals[r] = ScalarKind.get(values, r);
            rows[r] = idv.get(r);
        }
        return new DecodedPage(vals, rows);
    }

    /** Row addresses of {@code page} (a page_data batch) that satisfy the query. */
    public RowAddrTreeMap searchPage(VectorSchemaRoot page, SargableQuery query, String resource) {
        return searchPage(decodePage(page, resource), query);
    }

    /** Row addresses of a decoded page that satisfy the query. */
    public RowAddrTreeMap searchPage(DecodedPage page, SargableQuery query) {
        SargableQuery q = SargableQuery.coerce(query, kind);
        boolean nullsMatch = q instanceof SargableQuery.IsNull || (q instanceof SargableQuery.IsIn in && in.values().stream().anyMatch(x -> x == null));
        RowAddrTreeMap out = new RowAddrTreeMap();
        Object[] vals = page.values();
        for (int r = 0; r < vals.length; r++) {
            Object v = vals[r];
            if (v == null ? nullsMatch : SargableQuery.matches(q, kind, v)) {
                out.add(page.ids()[r]);
            }
        }
        return out;
    }

    /** Synchronous search with a page loader (page index → page_data batch; the loader owns the batch). */
    public SearchResult search(SargableQuery q, IntFunction<VectorSchemaRoot> pageLoader, String resource) {
        RowAddrTreeMap out = new RowAddrTreeMap();
        for (int p : pagesFor(q)) {
            out = RowAddrTreeMap.or(out, searchPage(pageLoader.apply(p), q, resource));
        }
        return new SearchResult.Exact(out);
    }

    /** Row range of page {@code p} in page_data: {@code [p·batch_size, p·batch_size + batch_size)} clipped by the caller. */
    public long pageStartRow(int p) {
        return (long) p * batchSize;
    }

    static List<Object> values(FieldVector v) {
        List<Object> out = new ArrayList<>(v.getValueCount());
        for (int i = 0; i < v.getValueCount(); i++) {
            out.add(ScalarKind.get(v, i));
        }
        return out;
    }
}
