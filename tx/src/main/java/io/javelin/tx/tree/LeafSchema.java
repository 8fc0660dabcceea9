package io.javelin.tx.tree;

import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow schema of a leaf, exactly as spec 000 states it (field order, types, nullability).
 * Mapping vectors are {@code dictionary<int32, binary>}; in Arrow Java the field carries the int32
 * index type and a {@link DictionaryEncoding} whose dictionary holds the binary values.
 */
public final class LeafSchema {

    static final long FILES_FIELD_IDS = 0;
    static final long FILES_COLUMN_INDICES = 1;
    static final long OVERLAY_FIELD_IDS = 2;
    static final long OVERLAY_COLUMN_INDICES = 3;

    static final ArrowType.Int INT32 = new ArrowType.Int(32, true);
    static final ArrowType.Int UINT32 = new ArrowType.Int(32, false);
    static final ArrowType.Int UINT64 = new ArrowType.Int(64, false);

    public static final Schema SCHEMA = new Schema(List.of(
            notNull("id", UINT64),
            notNull("fragment_meta", ArrowType.Binary.INSTANCE),
            new Field("files", FieldType.notNullable(ArrowType.List.INSTANCE),
                    List.of(dataFile("item", FILES_FIELD_IDS, FILES_COLUMN_INDICES))),
            new Field("overlays", FieldType.notNullable(ArrowType.List.INSTANCE),
                    List.of(new Field("item", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                            dataFile("data_file", OVERLAY_FIELD_IDS, OVERLAY_COLUMN_INDICES),
                            notNull("overlay_meta", ArrowType.Binary.INSTANCE)))))));

    private LeafSchema() {
    }

    static Field dataFile(String name, long fieldIdsDict, long columnIndicesDict) {
        return new Field(name, FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                notNull("path", ArrowType.Utf8.INSTANCE),
                mapping("field_ids", fieldIdsDict),
                mapping("column_indices", columnIndicesDict),
                notNull("major_version", UINT32),
                notNull("minor_version", UINT32),
                notNull("file_size_bytes", UINT64),
                new Field("base_id", FieldType.nullable(UINT32), null)));
    }

    static Field mapping(String name, long dictionaryId) {
        return new Field(name, new FieldType(false, INT32, new DictionaryEncoding(dictionaryId, false, INT32)), null);
    }

    private static Field notNull(String name, ArrowType type) {
        return new Field(name, FieldType.notNullable(type), null);
    }

    /**
     * Structural equality with {@link #SCHEMA}: names, order, types and nullability; dictionary
     * fields must be int32-indexed (dictionary ids and metadata are not compared).
     */
    static boolean matches(Schema schema) {
        return sameFields(SCHEMA.getFields(), schema.getFields());
    }

    private static boolean sameFields(List<Field> expected, List<Field> actual) {
        if (expected.size() != actual.size()) {
            return false;
        }
        for (int i = 0; i < expected.size(); i++) {
            Field e = expected.get(i);
            Field a = actual.get(i);
            if (!e.getName().equals(a.getName()) || e.isNullable() != a.isNullable()
                    || !e.getType().equals(a.getType())) {
                return false;
            }
            DictionaryEncoding ed = e.getDictionary();
            DictionaryEncoding ad = a.getDictionary();
            if ((ed == null) != (ad == null)) {
                return false;
            }
            if (ad != null && (!INT32.equals(ad.getIndexType()) || ad.isOrdered())) {
                return false;
            }
            if (!sameFields(e.getChildren(), a.getChildren())) {
                return false;
            }
        }
        return true;
    }
}
