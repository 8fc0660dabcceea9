package io.javelin.encoding.writer;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The physical shape of a leaf column's values: fixed width (bytes), boolean (bits), variable width
 * (32- or 64-bit offsets) or fixed-size list of fixed-width items (possibly nested, {@code dims} outer→inner).
 */
public record LeafType(Kind kind, int byteWidth, int offsetBytes, int[] dims, int[] packed) {

    public LeafType(Kind kind, int byteWidth, int offsetBytes, int[] dims) {
        this(kind, byteWidth, offsetBytes, dims, null);
    }

    /** A struct with {@code lance-encoding:packed=true} and fixed-width children: one row-major value. */
    public static LeafType packedStruct(Field f) {
        int[] widths = new int[f.getChildren().size()];
        int total = 0;
        for (int i = 0; i < widths.length; i++) {
            Field c = f.getChildren().get(i);
            int w = fixedWidth(c.getType());
            if (w <= 0) {
                throw new UnsupportedTypeException("Packed struct field '" + f.getName() + "' has a child that is not "
                        + "fixed-width: " + c.getName() + ": " + c.getType());
            }
            widths[i] = w;
            total += w;
        }
        return new LeafType(Kind.FIXED, total, 0, null, widths);
    }

    public static boolean isPacked(Field f) {
        return f.getType() instanceof ArrowType.Struct && f.getMetadata() != null
                && ("true".equalsIgnoreCase(f.getMetadata().get("lance-encoding:packed"))
                || "true".equalsIgnoreCase(f.getMetadata().get("packed")));
    }

    public enum Kind { FIXED, BOOL, VARIABLE, FSL }

    /** Items per value for FSL (product of dims), else 1. */
    public int cumDim() {
        int c = 1;
        if (dims != null) {
            for (int d : dims) {
                c *= d;
            }
        }
        return c;
    }

    /** Bytes of one value (FSL: all items, without validity); 0 for variable and bool. */
    public int valueBytes() {
        return switch (kind) {
            case FIXED -> byteWidth;
            case FSL -> byteWidth * cumDim();
            default -> 0;
        };
    }

    public static LeafType of(Field f) {
        if (isPacked(f)) {
            return packedStruct(f);
        }
        ArrowType t = f.getType();
        return switch (t) {
            case ArrowType.Bool b -> new LeafType(Kind.BOOL, 0, 0, null);
            case ArrowType.Utf8 u -> new LeafType(Kind.VARIABLE, 0, 4, null);
            case ArrowType.Binary u -> new LeafType(Kind.VARIABLE, 0, 4, null);
            case ArrowType.LargeUtf8 u -> new LeafType(Kind.VARIABLE, 0, 8, null);
            case ArrowType.LargeBinary u -> new LeafType(Kind.VARIABLE, 0, 8, null);
            case ArrowType.FixedSizeList fsl -> {
                Field child = f.getChildren().get(0);
                LeafType inner = of(child);
                if (inner.kind == Kind.FIXED) {
                    yield new LeafType(Kind.FSL, inner.byteWidth, 0, new int[] {fsl.getListSize()});
                } else if (inner.kind == Kind.FSL) {
                    int[] d = new int[inner.dims.length + 1];
                    d[0] = fsl.getListSize();
                    System.arraycopy(inner.dims, 0, d, 1, inner.dims.length);
                    yield new LeafType(Kind.FSL, inner.byteWidth, 0, d);
                }
                throw new UnsupportedTypeException("Unsupported fixed_size_list item type for field '" + f.getName()
                        + "': " + child.getType() + " (only fixed-width items)");
            }
            default -> {
                int w = fixedWidth(t);
                if (w <= 0) {
                    throw new UnsupportedTypeException("Unsupported Arrow type for field '" + f.getName() + "': " + t);
                }
                yield new LeafType(Kind.FIXED, w, 0, null);
            }
        };
    }

    /** Bytes per value of a fixed-width Arrow type, -1 for others (booleans, variable-width, nested). */
    public static int fixedWidth(ArrowType t) {
        return switch (t) {
            case ArrowType.Int i -> i.getBitWidth() / 8;
            case ArrowType.FloatingPoint fp -> switch (fp.getPrecision()) {
                case HALF -> 2;
                case SINGLE -> 4;
                case DOUBLE -> 8;
            };
            case ArrowType.Date d -> d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 4 : 8;
            case ArrowType.Time tm -> tm.getBitWidth() / 8;
            case ArrowType.Timestamp ts -> 8;
            case ArrowType.Duration du -> 8;
            case ArrowType.Decimal d -> d.getBitWidth() / 8;
            case ArrowType.FixedSizeBinary fsb -> fsb.getByteWidth();
            default -> -1;
        };
    }
}
