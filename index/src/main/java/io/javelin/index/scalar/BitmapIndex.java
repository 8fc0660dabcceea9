package io.javelin.index.scalar;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.BaseListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Lance's Bitmap index (and the LabelList index, which is a bitmap index over unnested list
 * elements). {@code bitmap_page_lookup.lance}: one row per distinct value, {@code keys: T?,
 * bitmaps: binary?}, each bitmap a {@link RowAddrTreeMap}; the null key's row holds the null
 * rows. Written sorted by key with the null key first, and schema metadata
 * {@code lance:index_stats={"num_bitmaps":N}} (as Lance 7 writes). All results are Exact.
 */
public final class BitmapIndex {

    public static final String FILE = "bitmap_page_lookup.lance";

    private final ScalarKind kind;
    private final ArrowType keyType;
    private final TreeMap<Object, RowAddrTreeMap> bitmaps;
    private final RowAddrTreeMap nulls;

    private BitmapIndex(ScalarKind kind, ArrowType keyType, TreeMap<Object, RowAddrTreeMap> bitmaps, RowAddrTreeMap nulls) {
        this.kind = kind;
        this.keyType = keyType;
        this.bitmaps = bitmaps;
        this.nulls = nulls;
    }

    public int numKeys() {
        return bitmaps.size();
    }

    public ScalarKind kind() {
        return kind;
    }

    /** Builds from one column and its row addresses. */
    public static BitmapIndex build(FieldVector values, long[] rowIds) {
        ArrowType type = values.getField().getType();
        ScalarKind kind = ScalarKind.of(type, "build");
        TreeMap<Object, RowAddrTreeMap> maps = new TreeMap<>(kind::compare);
        RowAddrTreeMap nulls = new RowAddrTreeMap();
        for (int i = 0; i < values.getValueCount(); i++) {
            Object v = ScalarKind.get(values, i);
            if (v == null) {
                nulls.add(rowIds[i]);
            } else {
                maps.computeIfAbsent(v, k -> new RowAddrTreeMap()).add(rowIds[i]);
            }
        }
        return new BitmapIndex(kind, type, maps, nulls);
    }

    /**
     * Builds a LabelList index from a List/LargeList column: every element value maps to the rows
     * whose list contains it (null lists and null elements are not indexed, as index_version 0).
     */
    public static BitmapIndex buildLabelList(BaseListVector lists, long[] rowIds) {
        FieldVector items = lists instanceof ListVector l ? l.getDataVector() : ((LargeListVector) lists).getDataVector();
        ArrowType type = items.getField().getType();
        ScalarKind kind = ScalarKind.of(type, "build");
        TreeMap<Object, RowAddrTreeMap> maps = new TreeMap<>(kind::compare);
        for (int i = 0; i < lists.getValueCount(); i++) {
            if (lists.isNull(i)) {
                continue;
            }
            long start = lists.getElementStartIndex(i), end = lists.getElementEndIndex(i);
            for (long j = start; j < end; j++) {
                Object v = ScalarKind.get(items, (int) j);
                if (v != null) {
                    maps.computeIfAbsent(v, k -> new RowAddrTreeMap()).add(rowIds[i]);
                }
            }
        }
        return new BitmapIndex(kind, type, maps, new RowAddrTreeMap());
    }

    /** The {@code bitmap_page_lookup.lance} table. */
    public VectorSchemaRoot toBatch(BufferAllocator allocator) {
        int n = bitmaps.size() + (nulls.isEmpty() ? 0 : 1);
        Schema schema = new Schema(List.of(
                new Field("keys", FieldType.nullable(keyType), null),
                new Field("bitmaps", FieldType.nullable(ArrowType.Binary.INSTANCE), null)),
                Map.of("lance:index_stats", "{\"num_bitmaps\":" + n + "}"));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            FieldVector keys = root.getVector("keys");
            VarBinaryVector bms = (VarBinaryVector) root.getVector("bitmaps");
            int r = 0;
            if (!nulls.isEmpty()) {
                keys.setNull(r);
                bms.setSafe(r++, nulls.serialize());
            }
            for (Map.Entry<Object, RowAddrTreeMap> e : bitmaps.entrySet()) {
                ScalarKind.set(keys, r, e.getKey());
                bms.setSafe(r++, e.getValue().serialize());
            }
            keys.setValueCount(n);
            bms.setValueCount(n);
            root.setRowCount(n);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** Loads every key and bitmap of a {@code bitmap_page_lookup.lance} table. */
    public static BitmapIndex load(VectorSchemaRoot batch, String resource) {
        FieldVector keys = batch.getVector("keys");
        FieldVector bms = batch.getVector("bitmaps");
        CorruptIndexException.check(keys != null && bms instanceof VarBinaryVector, resource,
                "bitmap index needs keys and bitmaps: binary, has %s", batch.getSchema().getFields());
        ScalarKind kind = ScalarKind.of(keys.getField().getType(), resource);
        TreeMap<Object, RowAddrTreeMap> maps = new TreeMap<>(kind::compare);
        RowAddrTreeMap nulls = new RowAddrTreeMap();
        VarBinaryVector bv = (VarBinaryVector) bms;
        for (int r = 0; r < batch.getRowCount(); r++) {
            Object k = ScalarKind.get(keys, r);
            RowAddrTreeMap m = bv.isNull(r) ? new RowAddrTreeMap() : RowAddrTreeMap.deserialize(bv.get(r), resource);
            if (k == null) {
                nulls = RowAddrTreeMap.or(nulls, m);
            } else {
                CorruptIndexException.check(maps.put(k, m) == null, resource, "duplicate bitmap key %s", k);
            }
        }
        return new BitmapIndex(kind, keys.getField().getType(), maps, nulls);
    }

    public SearchResult search(SargableQuery query) {
        SargableQuery q = SargableQuery.coerce(query, kind);
        RowAddrTreeMap out = switch (q) {
            case SargableQuery.IsNull n -> nulls.copy();
            case SargableQuery.Equals e -> e.value() == null ? new RowAddrTreeMap() : bitmaps.getOrDefault(e.value(), new RowAddrTreeMap()).copy();
            case SargableQuery.Range r -> {
                RowAddrTreeMap acc = new RowAddrTreeMap();
                for (Map.Entry<Object, RowAddrTreeMap> en : bitmaps.entrySet()) {
                    if (SargableQuery.matches(r, kind, en.getKey())) {
                        acc = RowAddrTreeMap.or(acc, en.getValue());
                    }
                }
                yield acc;
            }
            case SargableQuery.IsIn in -> {
                RowAddrTreeMap acc = new RowAddrTreeMap();
                for (Object v : in.values()) {
                    RowAddrTreeMap m = v == null ? nulls : bitmaps.get(v);
                    if (m != null) {
                        acc = RowAddrTreeMap.or(acc, m);
                    }
                }
                yield acc;
            }
        };
        return new SearchResult.Exact(out);
    }

    /** LabelList {@code array_has_any(col, labels)}: rows whose list contains any label. */
    public SearchResult hasAnyLabel(List<Object> labels) {
        RowAddrTreeMap acc = new RowAddrTreeMap();
        for (Object l : labels) {
            RowAddrTreeMap m = bitmaps.get(kind.coerce(l));
            if (m != null) {
                acc = RowAddrTreeMap.or(acc, m);
            }
        }
        return new SearchResult.Exact(acc);
    }

    /** LabelList {@code array_has_all(col, labels)}: rows whose list contains every label. */
    public SearchResult hasAllLabels(List<Object> labels) {
        RowAddrTreeMap acc = null;
        for (Object l : labels) {
            RowAddrTreeMap m = bitmaps.get(kind.coerce(l));
            if (m == null) {
                return new SearchResult.Exact(new RowAddrTreeMap());
            }
            acc = acc == null ? m.copy() : RowAddrTreeMap.and(acc, m);
        }
        return new SearchResult.Exact(acc == null ? new RowAddrTreeMap() : acc);
    }
}
