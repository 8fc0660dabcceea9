package io.javelin.index.scalar;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.kernel.SplitBlockBloomFilter;
import io.javelin.index.kernel.XxHash64;
import io.javelin.index.rowid.SearchResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Lance's BloomFilter (zone-based, inexact) index. {@code bloomfilter.lance}: one row per zone,
 * {@code fragment_id: u64, zone_start: u64, zone_length: u64, has_null: bool,
 * bloom_filter_data: binary} (a serialized {@link SplitBlockBloomFilter}); schema metadata
 * {@code bloomfilter_item="8192"} (items per zone, also the zone size) and
 * {@code bloomfilter_probability="0.00057"}. Values are hashed with XXH64 (seed 0) over their
 * little-endian / UTF-8 / raw bytes. Equals and IsIn probe each zone (AtMost); IsNull uses
 * {@code has_null}.
 */
public final class BloomFilterIndex {

    public static final String FILE = "bloomfilter.lance";
    public static final long DEFAULT_ITEMS = 8192;
    public static final double DEFAULT_PROBABILITY = 0.00057;

    public record Zone(long fragmentId, long zoneStart, long zoneLength, boolean hasNull, SplitBlockBloomFilter filter) {
    }

    private final ArrowType type;
    private final long items;
    private final double probability;
    private final List<Zone> zones;

    private BloomFilterIndex(ArrowType type, long items, double probability, List<Zone> zones) {
        this.type = type;
        this.items = items;
        this.probability = probability;
        this.zones = zones;
    }

    public List<Zone> zones() {
        return zones;
    }

    public static BloomFilterIndex build(List<ZoneMapIndex.FragmentValues> fragments, long items, double probability) {
        ArrowType type = fragments.get(0).values().getField().getType();
        List<Zone> zones = new ArrayList<>();
        for (ZoneMapIndex.FragmentValues f : fragments) {
            FieldVector v = f.values();
            int n = v.getValueCount();
            for (int start = 0; start < n; start += (int) items) {
                int end = (int) Math.min(n, start + items);
                SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.withNdvFpp(items, probability);
                boolean hasNull = false;
                for (int r = start; r < end; r++) {
                    if (v.isNull(r)) {
                        hasNull = true;
                    } else {
                        sbbf.insert(ScalarKind.hashBytes(v, r));
                    }
                }
                zones.add(new Zone(f.fragmentId(), f.offset(start), f.offset(end - 1) - f.offset(start) + 1, hasNull, sbbf));
            }
        }
        return new BloomFilterIndex(type, items, probability, zones);
    }

    public VectorSchemaRoot toBatch(BufferAllocator allocator) {
        ArrowType u64 = new ArrowType.Int(64, false);
        Map<String, String> meta = new LinkedHashMap<>();
        meta.put("bloomfilter_item", Long.toString(items));
        // Lance writes Rust's f64 Display ("0.00057", never exponent notation)
        meta.put("bloomfilter_probability", java.math.BigDecimal.valueOf(probability).stripTrailingZeros().toPlainString());
        Schema schema = new Schema(List.of(
                new Field("fragment_id", FieldType.notNullable(u64), null),
                new Field("zone_start", FieldType.notNullable(u64), null),
                new Field("zone_length", FieldType.notNullable(u64), null),
                new Field("has_null", FieldType.notNullable(ArrowType.Bool.INSTANCE), null),
                new Field("bloom_filter_data", FieldType.notNullable(ArrowType.Binary.INSTANCE), null)), meta);
        VectorSchemaRoot root = VectorSchemaRoot.create(schema, allocator);
        try {
            for (int i = 0; i < zones.size(); i++) {
                Zone z = zones.get(i);
                ((UInt8Vector) root.getVector("fragment_id")).setSafe(i, z.fragmentId());
                ((UInt8Vector) root.getVector("zone_start")).setSafe(i, z.zoneStart());
                ((UInt8Vector) root.getVector("zone_length")).setSafe(i, z.zoneLength());
                ((BitVector) root.getVector("has_null")).setSafe(i, z.hasNull() ? 1 : 0);
                ((VarBinaryVector) root.getVector("bloom_filter_data")).setSafe(i, z.filter().toBytes());
            }
            root.setRowCount(zones.size());
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** {@code valueType} is the indexed column's type (the file does not record it). */
    public static BloomFilterIndex load(VectorSchemaRoot batch, ArrowType valueType, String resource) {
        ValueVector frag = batch.getVector("fragment_id"), start = batch.getVector("zone_start"), len = batch.getVector("zone_length");
        ValueVector hasNull = batch.getVector("has_null"), data = batch.getVector("bloom_filter_data");
        CorruptIndexException.check(frag instanceof UInt8Vector && start instanceof UInt8Vector && len instanceof UInt8Vector
                        && hasNull instanceof BitVector && data instanceof VarBinaryVector, resource,
                "bloomfilter.lance has unexpected columns %s", batch.getSchema().getFields());
        Map<String, String> meta = batch.getSchema().getCustomMetadata();
        long items;
        double prob;
        try {
            items = Long.parseLong(meta.getOrDefault("bloomfilter_item", Long.toString(DEFAULT_ITEMS)));
            prob = Double.parseDouble(meta.getOrDefault("bloomfilter_probability", Double.toString(DEFAULT_PROBABILITY)));
        } catch (NumberFormatException | NullPointerException e) {
            throw new CorruptIndexException(resource, "bad bloom filter metadata " + meta, e);
        }
        List<Zone> zones = new ArrayList<>();
        for (int i = 0; i < batch.getRowCount(); i++) {
            byte[] bytes = ((VarBinaryVector) data).get(i);
            CorruptIndexException.check(bytes != null && bytes.length > 0 && bytes.length % 32 == 0, resource,
                    "zone %d bloom filter has %d bytes (must be a positive multiple of 32)", i, bytes == null ? -1 : bytes.length);
            long f = ((UInt8Vector) frag).get(i), s = ((UInt8Vector) start).get(i), l = ((UInt8Vector) len).get(i);
            CorruptIndexException.check(f >= 0 && f <= 0xFFFFFFFFL && s >= 0 && l >= 0 && s + l <= 0x1_0000_0000L, resource,
                    "zone %d (fragment %d, [%d, +%d)) exceeds 32-bit addresses", i, f, s, l);
            zones.add(new Zone(f, s, l, ((BitVector) hasNull).get(i) != 0, SplitBlockBloomFilter.fromBytes(bytes)));
        }
        return new BloomFilterIndex(valueType, items, prob, zones);
    }

    /** Hash of a query literal, encoded like the column values ({@code as_bytes}). */
    long hashLiteral(Object v) {
        byte[] b = switch (type.getTypeID()) {
            case Utf8, LargeUtf8 -> v.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            case Binary, LargeBinary -> v instanceof byte[] a ? a : ((ScalarKind.Bytes) v).value();
            case Bool -> new byte[] {(byte) (((Boolean) v) ? 1 : 0)};
            case FloatingPoint -> switch (((ArrowType.FloatingPoint) type).getPrecision()) {
                case HALF -> le(Float.floatToFloat16(((Number) v).floatValue()), 2);
                case SINGLE -> le(Float.floatToRawIntBits(((Number) v).floatValue()), 4);
                case DOUBLE -> le(Double.doubleToRawLongBits(((Number) v).doubleValue()), 8);
            };
            case Int -> le(((Number) v).longValue(), ((ArrowType.Int) type).getBitWidth() / 8);
            case Date -> le(((Number) v).longValue(), ((ArrowType.Date) type).getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8);
            case Timestamp -> le(((Number) v).longValue(), 8);
            default -> throw new IllegalArgumentException("Unsupported bloom filter type " + type);
        };
        return XxHash64.hash(b, 0);
    }

    private static byte[] le(long v, int width) {
        byte[] out = new byte[width];
        for (int i = 0; i < width; i++) {
            out[i] = (byte) (v >>> (8 * i));
        }
        return out;
    }

    public SearchResult search(SargableQuery q) {
        return search(q, null);
    }

    /** Whether a query kind can be answered (Bloom filters answer Equals, IsIn and IsNull, not ranges). */
    public static boolean supports(SargableQuery q) {
        return !(q instanceof SargableQuery.Range);
    }

    /** As {@link #search(SargableQuery)}, zone ranges trusted only where they tile the fragment (see {@link ZoneSpans}). */
    public SearchResult search(SargableQuery q, java.util.function.LongUnaryOperator physicalRows) {
        List<ZoneSpans.Span> spans = new ArrayList<>(zones.size());
        List<Object> probes = switch (q) {
            case SargableQuery.Equals e -> e.value() == null ? List.of() : List.of(e.value());
            case SargableQuery.IsIn in -> in.values();
            case SargableQuery.IsNull n -> null;
            case SargableQuery.Range r -> throw new UnsupportedOperationException("Bloom filters cannot answer range queries");
        };
        long[] hashes = probes == null ? null : probes.stream().filter(v -> v != null).mapToLong(this::hashLiteral).toArray();
        boolean nullProbe = probes == null || probes.stream().anyMatch(v -> v == null);
        for (Zone z : zones) {
            boolean hit = nullProbe && z.hasNull();
            if (!hit && hashes != null) {
                for (long h : hashes) {
                    if (z.filter().checkHash(h)) {
                        hit = true;
                        break;
                    }
                }
            }
            spans.add(new ZoneSpans.Span(z.fragmentId(), z.zoneStart(), z.zoneLength(), hit));
        }
        return new SearchResult.AtMost(ZoneSpans.candidates(spans, physicalRows));
    }
}
