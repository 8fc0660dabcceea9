package io.javelin.tx.schema;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.InvalidTableMetadataException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The table schema as Lance stores it: a flat, pre-order list of {@code lance.file.Field} linked by
 * {@code parent_id}, rebuilt here into a tree. Pre-order matters: Lance panics on a child listed before
 * its parent, so we reject it with a typed error instead.
 */
public final class LanceSchema {

    private final List<LanceField> fields;
    private final Map<Integer, LanceField> byId;
    private final Map<String, byte[]> metadata;

    private LanceSchema(List<LanceField> fields, Map<Integer, LanceField> byId, Map<String, byte[]> metadata) {
        this.fields = List.copyOf(fields);
        this.byId = Map.copyOf(byId);
        this.metadata = metadata;
    }

    /** Builds the tree from the manifest's flat field list; {@code metadata} is {@code schema_metadata}. */
    public static LanceSchema fromProto(List<Field> flat, Map<String, byte[]> metadata) {
        Map<Integer, List<Field>> childrenOf = new HashMap<>();
        Map<Integer, Field> seen = new HashMap<>();
        List<Field> roots = new ArrayList<>();
        for (Field f : flat) {
            if (seen.putIfAbsent(f.getId(), f) != null) {
                throw new InvalidTableMetadataException("Duplicate schema field id " + f.getId() + " (" + f.getName() + ")");
            }
            if (f.getParentId() == -1) {
                roots.add(f);
            } else if (!seen.containsKey(f.getParentId())) {
                throw new InvalidTableMetadataException("Schema field " + f.getName() + " (id " + f.getId()
                        + ") comes before its parent " + f.getParentId() + " or the parent does not exist");
            } else {
                childrenOf.computeIfAbsent(f.getParentId(), k -> new ArrayList<>()).add(f);
            }
        }
        Map<Integer, LanceField> byId = new HashMap<>();
        List<LanceField> top = new ArrayList<>();
        for (Field r : roots) {
            top.add(build(r, childrenOf, byId));
        }
        return new LanceSchema(top, byId, metadata == null ? Map.of() : new LinkedHashMap<>(metadata));
    }

    private static LanceField build(Field f, Map<Integer, List<Field>> childrenOf, Map<Integer, LanceField> byId) {
        List<LanceField> kids = new ArrayList<>();
        for (Field c : childrenOf.getOrDefault(f.getId(), List.of())) {
            kids.add(build(c, childrenOf, byId));
        }
        LanceField lf = new LanceField(f.getId(), f.getParentId(), f.getName(), f.getLogicalType(), f.getNullable(), kids, f);
        byId.put(f.getId(), lf);
        return lf;
    }

    /** Builds a schema from fields constructed in code, renumbering ids depth-first pre-order from 0. */
    public static LanceSchema of(List<LanceField> topLevel) {
        List<Field> flat = new ArrayList<>();
        int[] next = {0};
        for (LanceField f : topLevel) {
            flatten(f, -1, next, flat);
        }
        return fromProto(flat, Map.of());
    }

    private static void flatten(LanceField f, int parent, int[] next, List<Field> out) {
        int id = next[0]++;
        Field.Builder b = (f.source() != null ? f.source().toBuilder() : Field.newBuilder())
                .setName(f.name()).setId(id).setParentId(parent).setLogicalType(f.logicalType()).setNullable(f.nullable());
        out.add(b.build());
        for (LanceField c : f.children()) {
            flatten(c, id, next, out);
        }
    }

    public List<LanceField> fields() {
        return fields;
    }

    public LanceField field(int id) {
        return byId.get(id);
    }

    public LanceField field(String name) {
        for (LanceField f : fields) {
            if (f.name().equals(name)) {
                return f;
            }
        }
        return null;
    }

    public Map<String, byte[]> metadata() {
        return metadata;
    }

    /** The largest field id, or -1 for an empty schema. */
    public int maxFieldId() {
        int max = -1;
        for (int id : byId.keySet()) {
            max = Math.max(max, id);
        }
        return max;
    }

    /** The flat pre-order list for the manifest. */
    public List<Field> toProto() {
        List<Field> out = new ArrayList<>();
        for (LanceField f : fields) {
            preOrder(f, out);
        }
        return out;
    }

    private static void preOrder(LanceField f, List<Field> out) {
        out.add(f.source());
        for (LanceField c : f.children()) {
            preOrder(c, out);
        }
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("LanceSchema[");
        for (LanceField f : fields) {
            sb.append(f.name()).append(':').append(f.logicalType()).append(f.nullable() ? "" : " not null").append(", ");
        }
        return sb.append(']').toString();
    }
}
