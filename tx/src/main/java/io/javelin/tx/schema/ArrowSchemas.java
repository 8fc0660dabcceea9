package io.javelin.tx.schema;

import com.google.protobuf.ByteString;
import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.UnsupportedFeatureException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Lance logical type names (Lance {@code datatypes.rs}) to and from Arrow. Unknown names are refused
 * with a typed error rather than read as something approximately right.
 */
public final class ArrowSchemas {

    static final String EXTENSION_NAME = "ARROW:extension:name";
    static final String BFLOAT16 = "lance.bfloat16";
    static final String ARROW_JAVA_LIST_CHILD = "$data$";

    private ArrowSchemas() {
    }

    public static Schema toArrow(LanceSchema schema) {
        List<org.apache.arrow.vector.types.pojo.Field> out = new ArrayList<>();
        for (LanceField f : schema.fields()) {
            out.add(toArrow(f));
        }
        Map<String, String> md = new LinkedHashMap<>();
        schema.metadata().forEach((k, v) -> md.put(k, new String(v, StandardCharsets.UTF_8)));
        return new Schema(out, md.isEmpty() ? null : md);
    }

    public static org.apache.arrow.vector.types.pojo.Field toArrow(LanceField f) {
        Map<String, String> md = metadata(f.source());
        String lt = f.logicalType();
        List<org.apache.arrow.vector.types.pojo.Field> kids = new ArrayList<>();
        ArrowType type;
        DictionaryEncoding dict = null;
        if (lt.equals("struct")) {
            type = ArrowType.Struct.INSTANCE;
            for (LanceField c : f.children()) {
                kids.add(toArrow(c));
            }
        } else if (lt.equals("list") || lt.equals("list.struct") || lt.equals("large_list") || lt.equals("large_list.struct")) {
            type = lt.startsWith("large") ? ArrowType.LargeList.INSTANCE : ArrowType.List.INSTANCE;
            if (f.children().size() != 1) {
                throw new UnsupportedFeatureException("List field " + f.name() + " must have exactly one child, has "
                        + f.children().size());
            }
            kids.add(toArrow(f.children().get(0)));
        } else if (lt.equals("map")) {
            type = new ArrowType.Map(false);
            for (LanceField c : f.children()) {
                kids.add(toArrow(c));
            }
        } else if (lt.startsWith("fixed_size_list:")) {
            int first = lt.indexOf(':');
            int last = lt.lastIndexOf(':');
            if (last <= first) {
                throw unknown(lt);
            }
            String inner = lt.substring(first + 1, last);
            type = new ArrowType.FixedSizeList(parseInt(lt, lt.substring(last + 1)));
            kids.add(itemField(inner));
        } else if (lt.startsWith("dict:")) {
            // dict:{value}:{key}:{ordered}; the value type may itself contain ':'
            String[] parts = lt.split(":");
            if (parts.length < 4) {
                throw unknown(lt);
            }
            String key = parts[parts.length - 2];
            int valueEnd = lt.length() - key.length() - parts[parts.length - 1].length() - 2;
            if (valueEnd <= "dict:".length()) {
                throw unknown(lt);
            }
            String value = lt.substring("dict:".length(), valueEnd);
            type = primitive(value);
            if (!(primitive(key) instanceof ArrowType.Int keyType)) {
                throw unknown(lt);
            }
            dict = new DictionaryEncoding(f.id(), Boolean.parseBoolean(parts[parts.length - 1]), keyType);
        } else {
            type = primitive(lt);
        }
        return new org.apache.arrow.vector.types.pojo.Field(f.name(),
                new FieldType(f.nullable(), type, dict, md.isEmpty() ? null : md), kids);
    }

    private static org.apache.arrow.vector.types.pojo.Field itemField(String inner) {
        if (inner.equals(BFLOAT16)) {
            return new org.apache.arrow.vector.types.pojo.Field("item",
                    new FieldType(true, new ArrowType.FixedSizeBinary(2), null, Map.of(EXTENSION_NAME, BFLOAT16)), List.of());
        }
        return new org.apache.arrow.vector.types.pojo.Field("item", FieldType.nullable(primitive(inner)), List.of());
    }

    /** Types without children. */
    static ArrowType primitive(String lt) {
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
            case "date32:day": return new ArrowType.Date(DateUnit.DAY);
            case "date64:ms": return new ArrowType.Date(DateUnit.MILLISECOND);
            case "time32:s": return new ArrowType.Time(TimeUnit.SECOND, 32);
            case "time32:ms": return new ArrowType.Time(TimeUnit.MILLISECOND, 32);
            case "time64:us": return new ArrowType.Time(TimeUnit.MICROSECOND, 64);
            case "time64:ns": return new ArrowType.Time(TimeUnit.NANOSECOND, 64);
            default: break;
        }
        String[] p = lt.split(":", -1);
        switch (p[0]) {
            case "duration":
                if (p.length == 2) {
                    return new ArrowType.Duration(unit(lt, p[1]));
                }
                break;
            case "timestamp":
                if (p.length >= 3) {
                    // the time zone may itself contain ':' (e.g. +05:30)
                    String tz = lt.substring(p[0].length() + p[1].length() + 2);
                    return new ArrowType.Timestamp(unit(lt, p[1]), tz.equals("-") ? null : tz);
                }
                break;
            case "decimal":
                if (p.length == 4 && (p[1].equals("128") || p[1].equals("256"))) {
                    int scale;
                    try {
                        scale = Integer.parseInt(p[3]); // Arrow allows negative scales
                    } catch (NumberFormatException e) {
                        throw unknown(lt);
                    }
                    return new ArrowType.Decimal(parseInt(lt, p[2]), scale, Integer.parseInt(p[1]));
                }
                break;
            case "fixed_size_binary":
                if (p.length == 2) {
                    return new ArrowType.FixedSizeBinary(parseInt(lt, p[1]));
                }
                break;
            default:
                break;
        }
        throw unknown(lt);
    }

    /** The Lance logical type name of an Arrow type (the inverse of {@link #toArrow(LanceField)}). */
    public static String logicalType(org.apache.arrow.vector.types.pojo.Field f) {
        ArrowType t = f.getType();
        if (f.getDictionary() != null) {
            return "dict:" + logicalType(new org.apache.arrow.vector.types.pojo.Field("v", FieldType.nullable(t), List.of()))
                    + ":" + (f.getDictionary().getIndexType().getIsSigned() ? "" : "u") + "int"
                    + f.getDictionary().getIndexType().getBitWidth() + ":" + f.getDictionary().isOrdered();
        }
        return switch (t) {
            case ArrowType.Null n -> "null";
            case ArrowType.Bool b -> "bool";
            case ArrowType.Int i -> (i.getIsSigned() ? "" : "u") + "int" + i.getBitWidth();
            case ArrowType.FloatingPoint fp -> switch (fp.getPrecision()) {
                case HALF -> "halffloat";
                case SINGLE -> "float";
                case DOUBLE -> "double";
            };
            case ArrowType.Utf8 s -> "string";
            case ArrowType.LargeUtf8 s -> "large_string";
            case ArrowType.Binary b -> "binary";
            case ArrowType.LargeBinary b -> "large_binary";
            case ArrowType.Date d -> d.getUnit() == DateUnit.DAY ? "date32:day" : "date64:ms";
            case ArrowType.Time tm -> (tm.getBitWidth() == 32 ? "time32:" : "time64:") + unitName(tm.getUnit());
            case ArrowType.Duration d -> "duration:" + unitName(d.getUnit());
            case ArrowType.Timestamp ts -> "timestamp:" + unitName(ts.getUnit()) + ":"
                    + (ts.getTimezone() == null ? "-" : ts.getTimezone());
            case ArrowType.Decimal d -> "decimal:" + d.getBitWidth() + ":" + d.getPrecision() + ":" + d.getScale();
            case ArrowType.FixedSizeBinary b -> "fixed_size_binary:" + b.getByteWidth();
            case ArrowType.Struct s -> "struct";
            case ArrowType.List l -> isStruct(f.getChildren().get(0)) ? "list.struct" : "list";
            case ArrowType.LargeList l -> isStruct(f.getChildren().get(0)) ? "large_list.struct" : "large_list";
            case ArrowType.Map m -> "map";
            case ArrowType.FixedSizeList l -> {
                var item = f.getChildren().get(0);
                String inner = BFLOAT16.equals(item.getMetadata().get(EXTENSION_NAME)) ? BFLOAT16 : logicalType(item);
                yield "fixed_size_list:" + inner + ":" + l.getListSize();
            }
            default -> throw new UnsupportedFeatureException("Arrow type " + t + " has no Lance logical type");
        };
    }

    /** Builds a Lance schema from Arrow, ids assigned depth-first pre-order from 0 (Lance {@code set_id}). */
    public static LanceSchema fromArrow(Schema schema) {
        List<LanceField> top = new ArrayList<>();
        for (var f : schema.getFields()) {
            top.add(fromArrow(f));
        }
        return LanceSchema.of(top);
    }

    private static LanceField fromArrow(org.apache.arrow.vector.types.pojo.Field f) {
        String lt = logicalType(f);
        List<LanceField> kids = new ArrayList<>();
        if (!(f.getType() instanceof ArrowType.FixedSizeList)) {
            boolean list = f.getType() instanceof ArrowType.List || f.getType() instanceof ArrowType.LargeList;
            for (var c : f.getChildren()) {
                // Arrow Java names every list child $data$ whatever its field said; Lance and pyarrow say item
                kids.add(fromArrow(list && ARROW_JAVA_LIST_CHILD.equals(c.getName())
                        ? new org.apache.arrow.vector.types.pojo.Field("item", c.getFieldType(), c.getChildren()) : c));
            }
        }
        Field.Builder src = Field.newBuilder().setName(f.getName()).setLogicalType(lt).setNullable(f.isNullable());
        if (f.getMetadata() != null) {
            f.getMetadata().forEach((k, v) -> src.putMetadata(k, ByteString.copyFromUtf8(v)));
        }
        return new LanceField(0, -1, f.getName(), lt, f.isNullable(), kids, src.build());
    }

    private static boolean isStruct(org.apache.arrow.vector.types.pojo.Field f) {
        return f.getType() instanceof ArrowType.Struct;
    }

    private static Map<String, String> metadata(Field f) {
        Map<String, String> md = new LinkedHashMap<>();
        if (f != null) {
            f.getMetadataMap().forEach((k, v) -> md.put(k, v.toStringUtf8()));
            if (!f.getExtensionName().isEmpty()) {
                md.putIfAbsent(EXTENSION_NAME, f.getExtensionName());
            }
        }
        return md;
    }

    private static TimeUnit unit(String lt, String u) {
        return switch (u) {
            case "s" -> TimeUnit.SECOND;
            case "ms" -> TimeUnit.MILLISECOND;
            case "us" -> TimeUnit.MICROSECOND;
            case "ns" -> TimeUnit.NANOSECOND;
            default -> throw unknown(lt);
        };
    }

    private static String unitName(TimeUnit u) {
        return switch (u) {
            case SECOND -> "s";
            case MILLISECOND -> "ms";
            case MICROSECOND -> "us";
            case NANOSECOND -> "ns";
        };
    }

    /** Widths, sizes, precisions and scales in type strings: never negative. */
    private static int parseInt(String lt, String s) {
        try {
            int v = Integer.parseInt(s);
            if (v < 0) {
                throw unknown(lt);
            }
            return v;
        } catch (NumberFormatException e) {
            throw unknown(lt);
        }
    }

    private static UnsupportedFeatureException unknown(String lt) {
        return new UnsupportedFeatureException("Unsupported Lance logical type: " + lt);
    }
}
