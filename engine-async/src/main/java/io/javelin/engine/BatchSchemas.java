package io.javelin.engine;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.BaseRepeatedValueVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The schema a batch is labelled with. Arrow Java vectors report their own field, and a list vector's
 * child is always {@code $data$} whatever the field it was made from said; lance-core (and every other
 * Arrow) reports the table's names. Batches leaving the engine are therefore relabelled with the table
 * schema (names, nullability, metadata), zero-copy: the vectors stay, only the root's schema changes.
 */
public final class BatchSchemas {

    /** Arrow Java's placeholder name for a list child, never a user's choice. */
    static final String ARROW_JAVA_CHILD = BaseRepeatedValueVector.DATA_VECTOR_NAME;
    /** The name Lance, pyarrow and arrow-rs give a list child. */
    static final String ITEM = "item";

    private BatchSchemas() {
    }

    /**
     * {@code batch} under the table's labels, sharing its vectors (the caller hands {@code batch} over and
     * closes the result). Columns the table does not have ({@code _rowid}, {@code _distance}) keep their
     * own fields, with Arrow Java's placeholder child names replaced.
     */
    public static VectorSchemaRoot conform(VectorSchemaRoot batch, Schema table) {
        batch = JsonColumns.toText(batch, table);
        Schema labelled = conform(batch.getSchema(), table);
        if (labelled.equals(batch.getSchema())) {
            return batch;
        }
        return new VectorSchemaRoot(labelled, batch.getFieldVectors(), batch.getRowCount());
    }

    /** {@code actual}'s fields labelled as in {@code table} (top-level columns matched by name). */
    public static Schema conform(Schema actual, Schema table) {
        List<Field> out = new ArrayList<>(actual.getFields().size());
        for (Field f : actual.getFields()) {
            Field t = table == null ? null : find(table.getFields(), f.getName());
            out.add(t != null && JsonColumns.isStoredJson(t) && f.getType().equals(t.getType()) ? JsonColumns.userField(t) : conform(f, t));
        }
        return new Schema(out, actual.getCustomMetadata());
    }

    /**
     * {@code actual} labelled as {@code table}: struct children matched by name, the only child of a list,
     * fixed-size list or map by position. Where the types differ {@code actual} is kept.
     */
    static Field conform(Field actual, Field table) {
        if (table == null || !table.getType().equals(actual.getType())
                || (BlobV2.isBlobV2(table) && BlobV2.isDescriptor(actual))) { // scans return blob v2 descriptors as stored
            return withItemNames(actual);
        }
        List<Field> kids = new ArrayList<>(actual.getChildren().size());
        boolean single = actual.getChildren().size() == 1 && table.getChildren().size() == 1;
        for (int i = 0; i < actual.getChildren().size(); i++) {
            Field c = actual.getChildren().get(i);
            Field t;
            if (actual.getType() instanceof ArrowType.Struct) {
                t = find(table.getChildren(), c.getName());
            } else if (single) {
                t = table.getChildren().get(0);
            } else {
                t = i < table.getChildren().size() ? table.getChildren().get(i) : null;
            }
            kids.add(conform(c, t));
        }
        // struct children and columns were matched by name; a list's child takes the table's name
        return new Field(table.getName(),
                new FieldType(table.isNullable(), actual.getType(), actual.getDictionary(), table.getMetadata()), kids);
    }

    /** {@code f} with every list child named {@code $data$} renamed {@code item} (what a Lance writer records). */
    public static Field withItemNames(Field f) {
        boolean list = f.getType() instanceof ArrowType.List || f.getType() instanceof ArrowType.LargeList
                || f.getType() instanceof ArrowType.FixedSizeList || f.getType() instanceof ArrowType.ListView
                || f.getType() instanceof ArrowType.LargeListView;
        List<Field> kids = new ArrayList<>(f.getChildren().size());
        boolean changed = false;
        for (Field c : f.getChildren()) {
            Field k = withItemNames(c);
            if (list && ARROW_JAVA_CHILD.equals(k.getName())) {
                k = new Field(ITEM, k.getFieldType(), k.getChildren());
            }
            changed |= k != c;
            kids.add(k);
        }
        return changed ? new Field(f.getName(), f.getFieldType(), kids) : f;
    }

    /** {@code s} with {@link #withItemNames} applied to every field. */
    public static Schema withItemNames(Schema s) {
        List<Field> out = new ArrayList<>(s.getFields().size());
        boolean changed = false;
        for (Field f : s.getFields()) {
            Field g = withItemNames(f);
            changed |= g != f;
            out.add(g);
        }
        return changed ? new Schema(out, s.getCustomMetadata()) : s;
    }

    private static Field find(List<Field> fields, String name) {
        for (Field f : fields) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        return null;
    }
}
