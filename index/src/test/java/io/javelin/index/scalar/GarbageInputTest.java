package io.javelin.index.scalar;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.vector.Hnsw;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

/**
 * Batches with the right column names but random types, random values and random schema metadata:
 * every loader must either load or throw {@link CorruptIndexException} — never another exception
 * (which the caller could not tell from a bug) and never silently accept a wrong layout.
 */
class GarbageInputTest {

    static final String[] NAMES = {"min", "max", "null_count", "page_idx", "nan_count", "fragment_id", "zone_start", "zone_length",
        "keys", "bitmaps", "has_null", "bloom_filter_data", "values", "ids", "__vector_id"};
    static final ArrowType[] TYPES = {
        new ArrowType.Int(32, false), new ArrowType.Int(64, false), new ArrowType.Int(64, true), new ArrowType.Int(8, true),
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), ArrowType.Utf8.INSTANCE, ArrowType.Binary.INSTANCE,
        ArrowType.Bool.INSTANCE, ArrowType.Null.INSTANCE, new ArrowType.Decimal(10, 2, 128)};

    @Test
    void loadersThrowOnlyCorruptIndexException() {
        Random rnd = new Random(17);
        int loaded = 0, rejected = 0;
        try (BufferAllocator allocator = new RootAllocator()) {
            for (int round = 0; round < 400; round++) {
                List<Field> fields = new ArrayList<>();
                List<String> names = new ArrayList<>(List.of(NAMES));
                java.util.Collections.shuffle(names, rnd);
                int cols = 1 + rnd.nextInt(names.size());
                for (int c = 0; c < cols; c++) {
                    fields.add(new Field(names.get(c), FieldType.nullable(TYPES[rnd.nextInt(TYPES.length)]), null));
                }
                Map<String, String> meta = new HashMap<>();
                if (rnd.nextBoolean()) {
                    meta.put("batch_size", rnd.nextBoolean() ? "0" : Integer.toString(rnd.nextInt(5000) - 10));
                    meta.put("rows_per_zone", rnd.nextBoolean() ? "x" : "8192");
                    meta.put("bloomfilter_item", rnd.nextBoolean() ? "-1" : "8192");
                }
                try (VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields, meta), allocator)) {
                    int rows = rnd.nextInt(6);
                    for (FieldVector v : root.getFieldVectors()) {
                        v.allocateNew();
                        fillRandom(v, rows, rnd);
                    }
                    root.setRowCount(rows);
                    List<Runnable> loaders = List.of(
                            () -> BTreeIndex.load(root, null, "g"),
                            () -> BitmapIndex.load(root, "g"),
                            () -> ZoneMapIndex.load(root, "g"),
                            () -> BloomFilterIndex.load(root, new ArrowType.Int(64, true), "g"),
                            () -> Hnsw.fromBatch(root, 0, "{\"entry_point\":0,\"level_offsets\":[0," + rows + "]}", 3, "g"));
                    for (Runnable l : loaders) {
                        try {
                            l.run();
                            loaded++;
                        } catch (CorruptIndexException e) {
                            rejected++;
                        }
                    }
                }
            }
        }
        assertThat(rejected).isPositive();
        System.out.printf("garbage batches: %d loaded, %d rejected with CorruptIndexException%n", loaded, rejected);
    }

    static void fillRandom(FieldVector v, int rows, Random rnd) {
        for (int i = 0; i < rows; i++) {
            if (rnd.nextInt(4) == 0) {
                v.setNull(i);
                continue;
            }
            switch (v) {
                case org.apache.arrow.vector.UInt4Vector u -> u.setSafe(i, rnd.nextInt());
                case org.apache.arrow.vector.UInt8Vector u -> u.setSafe(i, rnd.nextLong());
                case org.apache.arrow.vector.BigIntVector u -> u.setSafe(i, rnd.nextLong());
                case org.apache.arrow.vector.TinyIntVector u -> u.setSafe(i, (byte) rnd.nextInt());
                case org.apache.arrow.vector.Float8Vector u -> u.setSafe(i, rnd.nextGaussian());
                case org.apache.arrow.vector.VarCharVector u -> u.setSafe(i, ("s" + rnd.nextInt(3)).getBytes());
                case org.apache.arrow.vector.VarBinaryVector u -> {
                    byte[] b = new byte[rnd.nextInt(40)];
                    rnd.nextBytes(b);
                    u.setSafe(i, b);
                }
                case org.apache.arrow.vector.BitVector u -> u.setSafe(i, rnd.nextInt(2));
                default -> v.setNull(i);
            }
        }
        v.setValueCount(rows);
    }
}
