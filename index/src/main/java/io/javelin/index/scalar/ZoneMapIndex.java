package io.javelin.index.scalar;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.rowid.SearchResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
 * Lance's ZoneMap (inexact skipping) index. {@code zonemap.lance}: one row per zone with
 * {@code min: T?, max: T?, null_count: u32, nan_count: u32, fragment_id: u64, zone_start: u64,
 * zone_length: u64} (u32 {@code zone_length}, as the spec says, is accepted on load); schema
 * metadata {@code rows_per_zone} (default 8192). Zones never cross fragments; {@code zone_start}
 * is the offset of the zone's first row within its fragment. min/max ignore nulls and NaN. Results
 * are AtMost: candidate address ranges {@code [(frag<<32)+start, +length)}.
 */
public final class ZoneMapIndex {

    public static final String FILE = "zonemap.lance";
    public static final int DEFAULT_ROWS_PER_ZONE = 8192;

    public record Zone(Object min, Object max, long nullCount, long nanCount, long fragmentId, long zoneStart, long zoneLength) {
    }

    /**
     * One fragment's live column values in row-offset order; {@code offsets[i]} is value i's row offset
     * (null: offsets 0..n-1, no deleted rows). A zone spans its first to its last row offset, so its range
     * stays a valid superset when rows were deleted before the build.
     */
    public record FragmentValues(long fragmentId, FieldVector values, long[] offsets) {
        public FragmentValues(long fragmentId, FieldVector values) {
            this(fragmentId, values, null);
        }

        long offset(int i) {
            return offsets == null ? i : offsets[i];
        }
    }

    private final ScalarKind kind;
    private final ArrowType type;
    private final int rowsPerZone;
    private final List<Zone> zones;

    private ZoneMapIndex(ScalarKind kind, ArrowType type, int rowsPerZone, List<Zone> zones) {
        this.kind = kind;
        this.type = type;
        this.rowsPerZone = rowsPerZone;
        this.zones = zones;
    }

    public List<Zone> zones() {
        return zones;
    }

    public static ZoneMapIndex build(List<FragmentValues> fragments, int rowsPerZone) {
        if (fragments.isEmpty()) {
            throw new IllegalArgumentException("No fragments to index");
        }
        ArrowType type = fragments.get(0).values().getField().getType();
        ScalarKind kind = ScalarKind.of(type, "build");
        List<Zone> zones = new ArrayList<>();
        for (FragmentValues f : fragments) {
            int n = f.values().getValueCount();
            for (int start = 0; start < n; start += rowsPerZone) {
                int end = Math.min(n, start + rowsPerZone);
                Object min = null, max = null;
                long nulls = 0, nans = 0;
                for (int r = start; r < end; r++) {
                    Object v = ScalarKind.get(f.values(), r);
                    if (v == null) {
                        nulls++;
                        continue;
                    }
                    if (v instanceof Double d && d.isNaN()) {
                        nans++;
                        continue;
                    }
                    if (min == null || kind.compare(v, min) < 0) {
                        min = v;
                    }
                    if (max == null || kind.compare(v, max) > 0) {
                        max = v;
                    }
                }
                zones.add(new Zone(min, max, nulls, nans, f.fragmentId(), f.offset(start), f.offset(end - 1) - f.offset(start) + 1));
            }
        }
        return new ZoneMapIndex(kind, type, rowsPerZone, zones);
    }

    public VectorSchemaRoot toBatch(BufferAllocator allocator) {
        ArrowType u32 = new ArrowType.Int(32, false), u64 = new ArrowType.Int(64, false);
        Schema schema = new Schema(List.of(
                new Field("min", FieldType.nullable(type), null),
                new Field("max", FieldType.nullable(type), null),
                new Field("null_count", FieldType.notNullable(u32), null),
                new Field("nan_count", FieldType.notNullable(u32), null),
                new Field("fragment_id", FieldType.notNullable(u64), null),
                new Field("zone_start", FieldType.notNullable(u64), null),
                new Field("zone_length", FieldType.notNullable(u64), null)),
                Map.of("rows_per_zone", Integer.toString(rowsPerZone)));
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            int n = zones.size();
            for (int i = 0; i < n; i++) {
                Zone z = zones.get(i);
                ScalarKind.set(root.getVector("min"), i, z.min());
                ScalarKind.set(root.getVector("max"), i, z.max());
                ((UInt4Vector) root.getVector("null_count")).setSafe(i, (int) z.nullCount());
                ((UInt4Vector) root.getVector("nan_count")).setSafe(i, (int) z.nanCount());
                ((UInt8Vector) root.getVector("fragment_id")).setSafe(i, z.fragmentId());
                ((UInt8Vector) root.getVector("zone_start")).setSafe(i, z.zoneStart());
                ((UInt8Vector) root.getVector("zone_length")).setSafe(i, z.zoneLength());
            }
            root.setRowCount(n);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static long unsigned(FieldVector v, int i, String resource, String col) {
        CorruptIndexException.check(!v.isNull(i), resource, "null %s at zone %d", col, i);
        return switch (v) {
            case UInt4Vector u -> Integer.toUnsignedLong(u.get(i));
            case UInt8Vector u -> u.get(i);
            default -> throw new CorruptIndexException(resource, col + " must be uint32 or uint64, is " + v.getField().getType());
        };
    }

    public static ZoneMapIndex load(VectorSchemaRoot batch, String resource) {
        String[] cols = {"min", "max", "null_count", "nan_count", "fragment_id", "zone_start", "zone_length"};
        for (String c : cols) {
            CorruptIndexException.check(batch.getVector(c) != null, resource, "zonemap lacks column %s", c);
        }
        Map<String, String> meta = batch.getSchema().getCustomMetadata();
        int rowsPerZone = DEFAULT_ROWS_PER_ZONE;
        if (meta != null && meta.containsKey("rows_per_zone")) {
            try {
                rowsPerZone = Integer.parseInt(meta.get("rows_per_zone"));
            } catch (NumberFormatException e) {
                throw new CorruptIndexException(resource, "rows_per_zone is not a number: " + meta.get("rows_per_zone"));
            }
        }
        ArrowType type = batch.getVector("min").getField().getType();
        ScalarKind kind = ScalarKind.of(type, resource);
        List<Zone> zones = new ArrayList<>();
        for (int i = 0; i < batch.getRowCount(); i++) {
            long frag = unsigned(batch.getVector("fragment_id"), i, resource, "fragment_id");
            long start = unsigned(batch.getVector("zone_start"), i, resource, "zone_start");
            long len = unsigned(batch.getVector("zone_length"), i, resource, "zone_length");
            CorruptIndexException.check(frag <= 0xFFFFFFFFL && start + len <= 0x1_0000_0000L, resource,
                    "zone %d (fragment %d, [%d, +%d)) exceeds 32-bit addresses", i, frag, start, len);
            Object min = ScalarKind.get(batch.getVector("min"), i), max = ScalarKind.get(batch.getVector("max"), i);
            CorruptIndexException.check((min == null) == (max == null) && (min == null || kind.compare(min, max) <= 0), resource,
                    "zone %d has inconsistent min/max", i);
            zones.add(new Zone(min, max, unsigned(batch.getVector("null_count"), i, resource, "null_count"),
                    unsigned(batch.getVector("nan_count"), i, resource, "nan_count"), frag, start, len));
        }
        return new ZoneMapIndex(kind, type, rowsPerZone, zones);
    }

    private boolean mayMatch(Zone z, SargableQuery q) {
        return switch (q) {
            case SargableQuery.IsNull n -> z.nullCount() > 0;
            case SargableQuery.Equals e -> e.value() != null && mayContain(z, e.value(), true, e.value(), true);
            case SargableQuery.Range r -> mayContain(z, r.lo(), r.loInclusive(), r.hi(), r.hiInclusive());
            case SargableQuery.IsIn in -> in.values().stream().anyMatch(v -> v == null ? z.nullCount() > 0 : mayContain(z, v, true, v, true));
        };
    }

    private boolean mayContain(Zone z, Object lo, boolean loIncl, Object hi, boolean hiIncl) {
        // NaN sorts above +inf in the total order: a zone with NaNs may match any range reaching past +inf
        if (z.nanCount() > 0 && (hi == null || (hi instanceof Double d && d.isNaN()))) {
            return true;
        }
        if (z.min() == null) {
            return false;
        }
        boolean aboveLo = lo == null || (loIncl ? kind.compare(z.max(), lo) >= 0 : kind.compare(z.max(), lo) > 0);
        boolean belowHi = hi == null || (hiIncl ? kind.compare(z.min(), hi) <= 0 : kind.compare(z.min(), hi) < 0);
        return aboveLo && belowHi;
    }

    public SearchResult search(SargableQuery query) {
        return search(query, null);
    }

    /**
     * As {@link #search(SargableQuery)}; with {@code physicalRows} (fragment id → physical rows, -1 when
     * unknown) zone ranges are trusted only where they tile the fragment (see {@link ZoneSpans}).
     */
    public SearchResult search(SargableQuery query, java.util.function.LongUnaryOperator physicalRows) {
        SargableQuery q = SargableQuery.coerce(query, kind);
        List<ZoneSpans.Span> spans = new ArrayList<>(zones.size());
        for (Zone z : zones) {
            spans.add(new ZoneSpans.Span(z.fragmentId(), z.zoneStart(), z.zoneLength(), mayMatch(z, q)));
        }
        return new SearchResult.AtMost(ZoneSpans.candidates(spans, physicalRows));
    }

    public int rowsPerZone() {
        return rowsPerZone;
    }
}
