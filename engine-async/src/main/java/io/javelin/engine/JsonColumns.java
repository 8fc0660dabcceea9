package io.javelin.engine;

import io.javelin.engine.jsonb.Jsonb;
import io.javelin.engine.jsonb.JsonbEncoder;
import io.javelin.engine.jsonb.JsonbException;
import io.javelin.engine.jsonb.JsonbValues;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * JSON columns as Lance keeps them (spec 001 "JSON Support"): stored as JSONB in a large-binary column with
 * the {@code lance.json} extension, handed to users as JSON text (Utf8 with {@code arrow.json}), as lance-core
 * 7.0.0's scans do. Writes take JSON text columns marked {@code arrow.json} and store them as JSONB (a Utf8
 * column marked {@code lance.json} stays text, as lance-core keeps it). Top-level columns only: JSON nested in structs or lists is kept as it is.
 */
public final class JsonColumns {

    static final String EXTENSION = "ARROW:extension:name";
    static final String LANCE_JSON = "lance.json";
    static final String ARROW_JSON = "arrow.json";

    private JsonColumns() {
    }

    static boolean isStoredJson(Field f) {
        return (f.getType() instanceof ArrowType.LargeBinary || f.getType() instanceof ArrowType.Binary)
                && LANCE_JSON.equals(metadata(f).get(EXTENSION));
    }

    static boolean isJsonText(Field f) {
        String ext = metadata(f).get(EXTENSION);
        return (f.getType() instanceof ArrowType.Utf8 || f.getType() instanceof ArrowType.LargeUtf8)
                && ARROW_JSON.equals(ext);
    }

    private static Map<String, String> metadata(Field f) {
        return f.getMetadata() == null ? Map.of() : f.getMetadata();
    }

    private static Field relabel(Field f, ArrowType type, String extension) {
        Map<String, String> md = new LinkedHashMap<>(metadata(f));
        md.put(EXTENSION, extension);
        return new Field(f.getName(), new FieldType(f.isNullable(), type, null, md), List.of());
    }

    /** The field a user sees for a stored JSON column (JSON text), others unchanged. */
    static Field userField(Field stored) {
        return isStoredJson(stored) ? relabel(stored, ArrowType.Utf8.INSTANCE, ARROW_JSON) : stored;
    }

    /** The schema a user sees for a stored schema (JSON columns as text). */
    static Schema userSchema(Schema stored) {
        if (stored.getFields().stream().noneMatch(JsonColumns::isStoredJson)) {
            return stored;
        }
        return new Schema(stored.getFields().stream().map(JsonColumns::userField).toList(), stored.getCustomMetadata());
    }

    /** The schema to store for a schema a user writes: JSON text columns become JSONB. */
    static Schema storageSchema(Schema given) {
        if (given.getFields().stream().noneMatch(JsonColumns::isJsonText)) {
            return given;
        }
        List<Field> out = new ArrayList<>();
        for (Field f : given.getFields()) {
            out.add(isJsonText(f) ? relabel(f, ArrowType.LargeBinary.INSTANCE, LANCE_JSON) : f);
        }
        return new Schema(out, given.getCustomMetadata());
    }

    /**
     * {@code batch} with its stored JSON columns (by the table's fields) replaced by JSON text; the JSONB vectors
     * are closed. The batch is returned as it is when it has none.
     */
    static VectorSchemaRoot toText(VectorSchemaRoot batch, Schema table) {
        if (table == null || table.getFields().stream().noneMatch(JsonColumns::isStoredJson)) {
            return batch;
        }
        List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors());
        List<Field> fields = new ArrayList<>(batch.getSchema().getFields());
        boolean changed = false;
        for (int k = 0; k < vectors.size(); k++) {
            FieldVector v = vectors.get(k);
            Field t = find(table, fields.get(k).getName());
            if (t == null || !isStoredJson(t) || !(v instanceof LargeVarBinaryVector || v instanceof org.apache.arrow.vector.VarBinaryVector)) {
                continue;
            }
            Field f = userField(t);
            VarCharVector text = new VarCharVector(f, v.getAllocator());
            try {
                fillText(v, text, batch.getRowCount());
            } catch (RuntimeException e) {
                text.close();
                throw e;
            }
            v.close();
            vectors.set(k, text);
            fields.set(k, f);
            changed = true;
        }
        return changed ? new VectorSchemaRoot(fields, vectors, batch.getRowCount()) : batch;
    }

    private static void fillText(ValueVector jsonb, VarCharVector out, int rows) {
        out.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (jsonb.isNull(i)) {
                out.setNull(i);
                continue;
            }
            byte[] doc = jsonb instanceof BaseLargeVariableWidthVector l ? l.get(i) : ((BaseVariableWidthVector) jsonb).get(i);
            try {
                out.setSafe(i, JsonbValues.toJson(doc, Jsonb.root(doc, 0, doc.length)).getBytes(StandardCharsets.UTF_8));
            } catch (JsonbException e) {
                throw new JsonColumnException("JSON column " + out.getName() + ", row " + i + ": " + e.getMessage());
            }
        }
        out.setValueCount(rows);
    }

    /**
     * {@code batch} with its JSON text columns (by {@code given}'s fields) encoded as JSONB; the text vectors are
     * closed. Invalid JSON is a {@link DatasetException} naming the column and row.
     */
    static VectorSchemaRoot toJsonb(VectorSchemaRoot batch, Schema given) {
        if (given.getFields().stream().noneMatch(JsonColumns::isJsonText)) {
            return batch;
        }
        List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors());
        List<Field> fields = new ArrayList<>(batch.getSchema().getFields());
        List<FieldVector> built = new ArrayList<>();
        List<FieldVector> replaced = new ArrayList<>();
        try {
            for (int k = 0; k < vectors.size(); k++) {
                Field g = find(given, fields.get(k).getName());
                FieldVector v = vectors.get(k);
                if (g == null || !isJsonText(g) || !(v instanceof VarCharVector || v instanceof org.apache.arrow.vector.LargeVarCharVector)) {
                    continue;
                }
                Field f = relabel(g, ArrowType.LargeBinary.INSTANCE, LANCE_JSON);
                LargeVarBinaryVector out = new LargeVarBinaryVector(f, v.getAllocator());
                built.add(out);
                encode(v, out, batch.getRowCount());
                replaced.add(v);
                vectors.set(k, out);
                fields.set(k, f);
            }
        } catch (RuntimeException e) {
            built.forEach(FieldVector::close);
            throw e;
        }
        replaced.forEach(FieldVector::close);
        return new VectorSchemaRoot(fields, vectors, batch.getRowCount());
    }

    private static void encode(FieldVector v, LargeVarBinaryVector out, int rows) {
        out.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            if (v.isNull(i)) {
                out.setNull(i);
                continue;
            }
            byte[] utf8 = v instanceof VarCharVector s ? s.get(i) : ((org.apache.arrow.vector.LargeVarCharVector) v).get(i);
            try {
                out.setSafe(i, JsonbEncoder.encode(new String(utf8, StandardCharsets.UTF_8)));
            } catch (JsonbException e) {
                throw new JsonColumnException("JSON column " + out.getName() + ", row " + i + ": " + e.getMessage());
            }
        }
        out.setValueCount(rows);
    }

    private static Field find(Schema s, String name) {
        for (Field f : s.getFields()) {
            if (f.getName().equals(name)) {
                return f;
            }
        }
        return null;
    }
}
