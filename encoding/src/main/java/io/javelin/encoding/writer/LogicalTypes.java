package io.javelin.encoding.writer;

import io.javelin.encoding.pb.file.Encoding;
import io.javelin.encoding.pb.file.FileDescriptor;
import io.javelin.encoding.pb.file.Schema;
import com.google.protobuf.ByteString;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Arrow schema to the Lance {@code FileDescriptor} of global buffer 0: fields flattened in pre-order,
 * ids 0.. in that order, parent id -1 at the top level, and Lance's logical type names.
 */
public final class LogicalTypes {
    private LogicalTypes() {
    }

    public static FileDescriptor fileDescriptor(org.apache.arrow.vector.types.pojo.Schema schema, long rows) {
        Schema.Builder sb = Schema.newBuilder();
        int[] nextId = {0};
        for (Field f : schema.getFields()) {
            addField(sb, f, -1, nextId);
        }
        if (schema.getCustomMetadata() != null) {
            for (Map.Entry<String, String> e : schema.getCustomMetadata().entrySet()) {
                sb.putMetadata(e.getKey(), ByteString.copyFrom(e.getValue(), StandardCharsets.UTF_8));
            }
        }
        return FileDescriptor.newBuilder().setSchema(sb).setLength(rows).build();
    }

    private static void addField(Schema.Builder sb, Field f, int parent, int[] nextId) {
        int id = nextId[0]++;
        if (BlobV2Columns.isBlobV2(f)) {
            BlobV2Columns.fileFields(sb, f, id, parent);
            return;
        }
        io.javelin.encoding.pb.file.Field.Builder fb = io.javelin.encoding.pb.file.Field.newBuilder()
                .setName(f.getName())
                .setId(id)
                .setParentId(parent)
                .setLogicalType(logicalType(f))
                .setNullable(f.isNullable());
        Encoding enc = encoding(f.getType());
        if (enc != Encoding.NONE) {
            fb.setEncoding(enc);
        }
        if (f.getMetadata() != null) {
            for (Map.Entry<String, String> e : f.getMetadata().entrySet()) {
                fb.putMetadata(e.getKey(), ByteString.copyFrom(e.getValue(), StandardCharsets.UTF_8));
            }
        }
        sb.addFields(fb);
        // FixedSizeList is a leaf in the Lance schema (no child field).
        if (f.getType() instanceof ArrowType.FixedSizeList) {
            return;
        }
        for (Field c : f.getChildren()) {
            addField(sb, c, id, nextId);
        }
    }

    private static Encoding encoding(ArrowType t) {
        return switch (t.getTypeID()) {
            case Struct, Map -> Encoding.NONE;
            case Utf8, LargeUtf8, Binary, LargeBinary -> Encoding.VAR_BINARY;
            default -> Encoding.PLAIN;
        };
    }

    /** Lance's logical type name for a field, e.g. {@code int64}, {@code timestamp:us:-}, {@code list.struct}. */
    public static String logicalType(Field f) {
        ArrowType t = f.getType();
        if (f.getDictionary() != null) {
            // A materialized dictionary field: the vector holds the values (type t); the file schema
            // declares dict:{value}:{index}:{ordered} as Lance does for Arrow dictionary arrays.
            var d = f.getDictionary();
            Field values = new Field(f.getName(), new org.apache.arrow.vector.types.pojo.FieldType(f.isNullable(), t, null),
                    f.getChildren());
            return "dict:" + logicalType(values) + ":" + logicalType(new Field("key",
                    org.apache.arrow.vector.types.pojo.FieldType.notNullable(d.getIndexType()), null)) + ":" + d.isOrdered();
        }
        return switch (t) {
            case ArrowType.Null n -> "null";
            case ArrowType.Bool b -> "bool";
            case ArrowType.Int i -> (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
            case ArrowType.FloatingPoint fp -> switch (fp.getPrecision()) {
                case HALF -> "halffloat";
                case SINGLE -> "float";
                case DOUBLE -> "double";
            };
            case ArrowType.Utf8 u -> "string";
            case ArrowType.LargeUtf8 u -> "large_string";
            case ArrowType.Binary b -> "binary";
            case ArrowType.LargeBinary b -> "large_binary";
            case ArrowType.Decimal d -> "decimal:" + d.getBitWidth() + ":" + d.getPrecision() + ":" + d.getScale();
            case ArrowType.Date d -> d.getUnit() == DateUnit.DAY ? "date32:day" : "date64:ms";
            case ArrowType.Time tm -> (tm.getBitWidth() == 32 ? "time32:" : "time64:") + unit(tm.getUnit());
            case ArrowType.Timestamp ts -> "timestamp:" + unit(ts.getUnit()) + ":"
                    + (ts.getTimezone() == null ? "-" : ts.getTimezone());
            case ArrowType.Duration du -> "duration:" + unit(du.getUnit());
            case ArrowType.FixedSizeBinary fsb -> "fixed_size_binary:" + fsb.getByteWidth();
            case ArrowType.FixedSizeList fsl -> "fixed_size_list:" + logicalType(f.getChildren().get(0)) + ":" + fsl.getListSize();
            case ArrowType.List l -> isStructChild(f) ? "list.struct" : "list";
            case ArrowType.LargeList l -> isStructChild(f) ? "large_list.struct" : "large_list";
            case ArrowType.Struct s -> "struct";
            case ArrowType.Map m -> "map";
            default -> throw new UnsupportedTypeException("Unsupported Arrow type for field '" + f.getName() + "': " + t);
        };
    }

    private static boolean isStructChild(Field f) {
        List<Field> c = f.getChildren();
        return c.size() == 1 && c.get(0).getType() instanceof ArrowType.Struct;
    }

    private static String unit(TimeUnit u) {
        return switch (u) {
            case SECOND -> "s";
            case MILLISECOND -> "ms";
            case MICROSECOND -> "us";
            case NANOSECOND -> "ns";
        };
    }

    static boolean isHalf(ArrowType t) {
        return t instanceof ArrowType.FloatingPoint fp && fp.getPrecision() == FloatingPointPrecision.HALF;
    }
}
