package io.javelin.encoding.file;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/** Lance schema protobufs (flattened pre-order fields, logical type strings) to Arrow. */
public final class LanceSchemas {

    private LanceSchemas() {
    }

    /** Builds the field tree and assigns columns according to the file version. */
    public static List<LanceField> fieldTree(String resource, List<io.javelin.encoding.pb.file.Field> flat,
                                             LanceFileVersion version) {
        flat = BlobV2Descriptors.reparent(flat);
        Map<Integer, List<io.javelin.encoding.pb.file.Field>> byParent = new HashMap<>();
        Map<Integer, io.javelin.encoding.pb.file.Field> byId = new HashMap<>();
        for (var f : flat) {
            if (byId.put(f.getId(), f) != null) {
                throw new CorruptFileException(resource, -1, "Duplicate field id " + f.getId() + " in schema");
            }
            byParent.computeIfAbsent(f.getParentId(), k -> new ArrayList<>()).add(f);
        }
        for (var f : flat) {
            if (f.getParentId() != -1 && !byId.containsKey(f.getParentId())) {
                throw new CorruptFileException(resource, -1, "Field " + f.getName() + " has unknown parent " + f.getParentId());
            }
        }
        int[] next = {0};
        List<LanceField> top = new ArrayList<>();
        for (var f : byParent.getOrDefault(-1, List.of())) {
            top.add(build(resource, f, byParent, version, next, 0));
        }
        return top;
    }

    private static LanceField build(String resource, io.javelin.encoding.pb.file.Field f,
                                    Map<Integer, List<io.javelin.encoding.pb.file.Field>> byParent,
                                    LanceFileVersion version, int[] next, int depth) {
        if (depth > 64) {
            throw new CorruptFileException(resource, -1, "Schema nesting deeper than 64");
        }
        Map<String, String> md = new LinkedHashMap<>();
        f.getMetadataMap().forEach((k, v) -> md.put(k, v.toString(StandardCharsets.UTF_8)));
        String lt = f.getLogicalType();
        boolean packed = "true".equalsIgnoreCase(md.get("packed")) || "true".equalsIgnoreCase(md.get("lance-encoding:packed"));
        boolean nested = lt.equals("struct") || lt.startsWith("list") || lt.startsWith("large_list") || lt.equals("map");
        int column = -1;
        if (!version.structural()) {
            column = next[0]++;
        } else if (!nested || packed) {
            column = next[0]++;
        }
        List<LanceField> children = new ArrayList<>();
        int[] childNext = (packed || !nested) ? new int[] {0} : next;
        for (var c : byParent.getOrDefault(f.getId(), List.of())) {
            LanceField child = build(resource, c, byParent, version, childNext, depth + 1);
            if (packed) {
                child = new LanceField(child.id(), child.name(), child.logicalType(), child.nullable(), child.metadata(),
                        child.children(), child.arrow(), -1);
            }
            children.add(child);
        }
        if (nested && children.isEmpty() && !lt.equals("struct")) {
            throw new CorruptFileException(resource, -1, "Nested field " + f.getName() + " (" + lt + ") has no child");
        }
        List<Field> arrowChildren = new ArrayList<>();
        for (LanceField c : children) {
            arrowChildren.add(c.arrow());
        }
        ArrowType type = arrowType(resource, lt, f.getName());
        org.apache.arrow.vector.types.pojo.DictionaryEncoding dictionary = dictionary(resource, lt, f.getName(), f.getId());
        List<Field> kids = arrowChildren;
        if (type instanceof ArrowType.FixedSizeList) {
            kids = List.of(new Field("item", FieldType.nullable(fslItemType(resource, lt, f.getName())), null));
        } else if (type instanceof ArrowType.Map && !arrowChildren.isEmpty()) {
            Field entries = arrowChildren.get(0);
            kids = List.of(new Field(entries.getName(), new FieldType(false, entries.getType(), null, entries.getMetadata()),
                    entries.getChildren()));
        }
        Field arrow = new Field(f.getName(), new FieldType(f.getNullable(), type, dictionary, md.isEmpty() ? null : md), kids);
        return new LanceField(f.getId(), f.getName(), lt, f.getNullable(), md, children, arrow, column);
    }

    /** The Arrow schema of a field tree, with the file schema's metadata. */
    public static Schema arrowSchema(List<LanceField> fields, Map<String, String> metadata) {
        List<Field> out = new ArrayList<>();
        for (LanceField f : fields) {
            out.add(f.arrow());
        }
        return new Schema(out, metadata.isEmpty() ? null : metadata);
    }

    static ArrowType fslItemType(String resource, String lt, String name) {
        // fixed_size_list:{inner}:{n}; inner may itself contain ':' (e.g. timestamp:us:-)
        int last = lt.lastIndexOf(':');
        String inner = lt.substring("fixed_size_list:".length(), last);
        if (inner.equals("lance.bfloat16")) {
            return new ArrowType.FixedSizeBinary(2);
        }
        return arrowType(resource, inner, name);
    }

    /**
     * {@code dict:{value}:{key}:{ordered}}: the field is read as its values (type {@code value}) and
     * carries the {@link org.apache.arrow.vector.types.pojo.DictionaryEncoding} (id = the Lance field id)
     * so callers can re-encode it; null for any other logical type.
     */
    static org.apache.arrow.vector.types.pojo.DictionaryEncoding dictionary(String resource, String lt, String name, int id) {
        if (!lt.startsWith("dict:")) {
            return null;
        }
        String[] kv = dictParts(resource, lt, name);
        ArrowType key = arrowType(resource, kv[1], name);
        if (!(key instanceof ArrowType.Int k)) {
            throw new CorruptFileException(resource, -1, "Bad dictionary key type '" + kv[1] + "' of field " + name);
        }
        return new org.apache.arrow.vector.types.pojo.DictionaryEncoding(id, Boolean.parseBoolean(kv[2]), k);
    }

    /** {value, key, ordered} of a dict logical type; the value type may itself contain ':'. */
    private static String[] dictParts(String resource, String lt, String name) {
        int last = lt.lastIndexOf(':');
        int key = last > 5 ? lt.lastIndexOf(':', last - 1) : -1;
        if (key <= 5) {
            throw new CorruptFileException(resource, -1, "Bad logical type '" + lt + "' of field " + name);
        }
        return new String[] {lt.substring(5, key), lt.substring(key + 1, last), lt.substring(last + 1)};
    }

    /** Parses a Lance logical type string. */
    public static ArrowType arrowType(String resource, String lt, String name) {
        if (lt.startsWith("dict:")) {
            return arrowType(resource, dictParts(resource, lt, name)[0], name);
        }
        switch (lt) {
            case "null": return ArrowType.Null.INSTANCE;
            case "bool": return ArrowType.Bool.INSTANCE;
            case "int8": return new ArrowType.Int(8, true);
            case "uint8": return new ArrowType.Int(8, false);
            case "int16": return new ArrowType.Int(16, true);
            case "uint16": return new ArrowType.Int(16, false);
            case "int32": return new ArrowType.Int(32, true);
            case "uint32": return new ArrowType.Int(32, false);
            case "int64": return new ArrowType.Int(64, true);
            case "uint64": return new ArrowType.Int(64, false);
            case "halffloat": return new ArrowType.FloatingPoint(FloatingPointPrecision.HALF);
            case "float": return new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
            case "double": return new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case "string": return ArrowType.Utf8.INSTANCE;
            case "large_string": return ArrowType.LargeUtf8.INSTANCE;
            case "binary": return ArrowType.Binary.INSTANCE;
            case "large_binary", "json": return ArrowType.LargeBinary.INSTANCE;
            case "struct": return ArrowType.Struct.INSTANCE;
            case "list", "list.struct": return ArrowType.List.INSTANCE;
            case "large_list", "large_list.struct": return ArrowType.LargeList.INSTANCE;
            case "map": return new ArrowType.Map(false);
            case "date32:day": return new ArrowType.Date(DateUnit.DAY);
            case "date64:ms": return new ArrowType.Date(DateUnit.MILLISECOND);
            default: break;
        }
        String[] p = lt.split(":", 3);
        try {
            switch (p[0]) {
                case "decimal":
                    return new ArrowType.Decimal(Integer.parseInt(p[2].split(":")[0]), Integer.parseInt(p[2].split(":")[1]),
                            Integer.parseInt(p[1]));
                case "time32":
                    return new ArrowType.Time(unit(p[1]), 32);
                case "time64":
                    return new ArrowType.Time(unit(p[1]), 64);
                case "timestamp":
                    return new ArrowType.Timestamp(unit(p[1]), p.length < 3 || p[2].equals("-") ? null : p[2]);
                case "duration":
                    return new ArrowType.Duration(unit(p[1]));
                case "fixed_size_binary":
                    return new ArrowType.FixedSizeBinary(Integer.parseInt(p[1]));
                case "fixed_size_list":
                    return new ArrowType.FixedSizeList(Integer.parseInt(lt.substring(lt.lastIndexOf(':') + 1)));
                default:
                    break;
            }
        } catch (RuntimeException e) {
            throw new CorruptFileException(resource, -1, "Bad logical type '" + lt + "' of field " + name, e);
        }
        throw new UnsupportedEncodingException(resource, -1, "Unsupported logical type '" + lt + "' of field " + name);
    }

    private static TimeUnit unit(String u) {
        return switch (u) {
            case "s" -> TimeUnit.SECOND;
            case "ms" -> TimeUnit.MILLISECOND;
            case "us" -> TimeUnit.MICROSECOND;
            case "ns" -> TimeUnit.NANOSECOND;
            default -> throw new IllegalArgumentException("time unit " + u);
        };
    }
}
