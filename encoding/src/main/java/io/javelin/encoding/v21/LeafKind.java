package io.javelin.encoding.v21;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** What a leaf column's values look like in memory, derived from its Arrow field. */
public record LeafKind(boolean variable, int bitsPerValue, int offsetBits, int itemsPerValue) {

    public static LeafKind of(Field f) {
        ArrowType t = f.getType();
        return switch (t) {
            case ArrowType.Utf8 u -> new LeafKind(true, 0, 32, 1);
            case ArrowType.Binary b -> new LeafKind(true, 0, 32, 1);
            case ArrowType.LargeUtf8 u -> new LeafKind(true, 0, 64, 1);
            case ArrowType.LargeBinary b -> new LeafKind(true, 0, 64, 1);
            case ArrowType.FixedSizeList l -> {
                LeafKind item = of(f.getChildren().get(0));
                yield new LeafKind(false, item.bitsPerValue * l.getListSize(), 0, l.getListSize());
            }
            case ArrowType.Struct s -> { // packed struct
                int sum = 0;
                for (Field c : f.getChildren()) {
                    if (of(c).variable) { // 2.2 variable packed struct: each row's packed bytes are one value
                        yield new LeafKind(true, 0, 32, 1);
                    }
                }
                for (Field c : f.getChildren()) {
                    sum += of(c).bitsPerValue;
                }
                yield new LeafKind(false, sum, 0, 1);
            }
            default -> new LeafKind(false, fixedBits(t), 0, 1);
        };
    }

    static int fixedBits(ArrowType t) {
        return switch (t) {
            case ArrowType.Bool b -> 1;
            case ArrowType.Int i -> i.getBitWidth();
            case ArrowType.FloatingPoint fp -> switch (fp.getPrecision()) {
                case HALF -> 16;
                case SINGLE -> 32;
                case DOUBLE -> 64;
            };
            case ArrowType.Date d -> d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 32 : 64;
            case ArrowType.Time tm -> tm.getBitWidth();
            case ArrowType.Timestamp ts -> 64;
            case ArrowType.Duration du -> 64;
            case ArrowType.Decimal dec -> dec.getBitWidth();
            case ArrowType.FixedSizeBinary fsb -> fsb.getByteWidth() * 8;
            case ArrowType.Null n -> 8;
            default -> throw new IllegalArgumentException("not a fixed-width type: " + t);
        };
    }

    public ValuesBuilderFactory builder() {
        return () -> new io.javelin.encoding.arrow.ValuesBuilder(variable, bitsPerValue, itemsPerValue);
    }

    /** Creates value builders for this kind. */
    public interface ValuesBuilderFactory {
        io.javelin.encoding.arrow.ValuesBuilder create();
    }
}
