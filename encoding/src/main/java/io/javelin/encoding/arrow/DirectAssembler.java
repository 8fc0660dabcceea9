package io.javelin.encoding.arrow;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Builds the vector of rows {@code [from, to)} of a {@link DirectPage} with its value bytes wrapped, not
 * copied: fixed-width primitives, fixed-size lists of them, and variable-width strings/binaries (whose
 * offsets are rebased into a small new buffer). Every row is valid, so Arrow fills the validity bitmaps.
 */
public final class DirectAssembler {

    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private DirectAssembler() {
    }

    /** True if {@link #toVector} can build {@code field} from {@code page}. */
    public static boolean supports(Field field, DirectPage page) {
        return kind(field, page) != null;
    }

    private static String kind(Field field, DirectPage page) {
        var t = field.getType();
        if (page.variable()) {
            return t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8
                    || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Binary ? "var32"
                    : t instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeUtf8
                    || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeBinary ? "var64" : null;
        }
        if (t instanceof org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList fsl) {
            Field item = field.getChildren().get(0);
            int w = primitiveBits(item);
            return w > 0 && w * fsl.getListSize() == page.bitsPerValue() ? "fsl" : null;
        }
        return primitiveBits(field) == page.bitsPerValue() ? "fixed" : null;
    }

    /** Bit width of a byte-aligned fixed-width primitive (no booleans, no nested types), else -1. */
    private static int primitiveBits(Field f) {
        return switch (f.getType()) {
            case org.apache.arrow.vector.types.pojo.ArrowType.Int i -> i.getBitWidth();
            case org.apache.arrow.vector.types.pojo.ArrowType.FloatingPoint fp -> switch (fp.getPrecision()) {
                case HALF -> 16;
                case SINGLE -> 32;
                case DOUBLE -> 64;
            };
            case org.apache.arrow.vector.types.pojo.ArrowType.Date d -> d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? 32 : 64;
            case org.apache.arrow.vector.types.pojo.ArrowType.Timestamp ts -> 64;
            case org.apache.arrow.vector.types.pojo.ArrowType.Time tm -> tm.getBitWidth();
            case org.apache.arrow.vector.types.pojo.ArrowType.Duration du -> 64;
            case org.apache.arrow.vector.types.pojo.ArrowType.Decimal dec -> dec.getBitWidth();
            case org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeBinary fsb -> fsb.getByteWidth() * 8;
            default -> -1;
        };
    }

    /** The vector of rows {@code [from, to)}, or null when this page/field pair needs the general path. */
    public static FieldVector toVector(Field field, DirectPage page, int from, int to, BufferAllocator allocator) {
        String kind = kind(field, page);
        if (kind == null || from < 0 || to > page.count() || from > to) {
            return null;
        }
        int n = to - from;
        FieldVector v = field.createVector(allocator);
        try {
            long b0 = page.byteStart(from);
            long b1 = page.byteStart(to);
            switch (kind) {
                case "fixed" -> {
                    if (!(v instanceof BaseFixedWidthVector) || v instanceof BitVector) {
                        v.close();
                        return null;
                    }
                    load(v, n, allocator.getEmpty(), page.wrap(allocator, b0, b1 - b0));
                }
                case "fsl" -> {
                    FixedSizeListVector l = (FixedSizeListVector) v;
                    FieldVector child = l.getDataVector();
                    if (!(child instanceof BaseFixedWidthVector) || child instanceof BitVector) {
                        v.close();
                        return null;
                    }
                    load(v, n, allocator.getEmpty());
                    load(child, n * l.getListSize(), allocator.getEmpty(), page.wrap(allocator, b0, b1 - b0));
                }
                default -> {
                    if (!(v instanceof BaseVariableWidthVector) && !(v instanceof BaseLargeVariableWidthVector)) {
                        v.close();
                        return null;
                    }
                    int w = kind.equals("var64") ? 8 : 4;
                    ArrowBuf offsets = allocator.buffer((long) (n + 1) * w);
                    ArrowBuf bytes = null;
                    try {
                        MemorySegment dst = MemorySegment.ofAddress(offsets.memoryAddress()).reinterpret((long) (n + 1) * w);
                        long[] src = page.offsets();
                        if (w == 4) {
                            if (b1 - b0 > Integer.MAX_VALUE) {
                                throw new IllegalStateException("batch of " + (b1 - b0) + " string bytes needs large offsets");
                            }
                            for (int i = 0; i <= n; i++) {
                                dst.setAtIndex(INT_LE, i, (int) (src[from + i] - b0));
                            }
                        } else {
                            for (int i = 0; i <= n; i++) {
                                dst.setAtIndex(LONG_LE, i, src[from + i] - b0);
                            }
                        }
                        bytes = page.wrap(allocator, b0, b1 - b0);
                    } catch (RuntimeException | Error e) {
                        offsets.close();
                        throw e;
                    }
                    load(v, n, allocator.getEmpty(), offsets, bytes);
                }
            }
            return v;
        } catch (RuntimeException | Error e) {
            v.close();
            throw e;
        }
    }

    /** Loads the buffers (the vector retains them) and drops the caller's references. */
    private static void load(FieldVector v, int length, ArrowBuf... bufs) {
        try {
            v.loadFieldBuffers(new ArrowFieldNode(length, 0), List.of(bufs));
        } finally {
            for (ArrowBuf b : bufs) {
                b.close();
            }
        }
    }
}
