package io.javelin.encoding.arrow;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import io.javelin.encoding.kernel.Kernels;
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

    static String kind(Field field, DirectPage page) {
        var t = field.getType();
        if (page.bitmap()) {
            return t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Bool ? "bool" : null;
        }
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

    /**
     * The vector of rows {@code [from, to)} of a column whose page {@code p} starts at row {@code starts[p]},
     * when every page under the range is a {@link DirectPage} ({@code page.apply(p)}); else null.
     */
    public static FieldVector toVector(Field field, long[] starts, java.util.function.IntFunction<Object> page, long from, long to,
                                       BufferAllocator allocator) {
        if (to <= from) {
            return null;
        }
        List<DirectPage> parts = new java.util.ArrayList<>();
        List<int[]> bounds = new java.util.ArrayList<>();
        for (long row = from; row < to; ) {
            int i = java.util.Arrays.binarySearch(starts, row);
            int p = i >= 0 ? i : -i - 2;
            while (p < starts.length - 2 && starts[p + 1] <= row) {
                p++;
            }
            if (p < 0 || p >= starts.length - 1 || !(page.apply(p) instanceof DirectPage dp)) {
                return null;
            }
            int f0 = (int) (row - starts[p]);
            int f1 = (int) (Math.min(to, starts[p + 1]) - starts[p]);
            if (f1 <= f0) {
                return null;
            }
            parts.add(dp);
            bounds.add(new int[] {f0, f1});
            row = starts[p] + f1;
        }
        return toVector(field, parts, bounds.stream().mapToInt(b -> b[0]).toArray(), bounds.stream().mapToInt(b -> b[1]).toArray(),
                allocator);
    }

    /** True if pages of {@code field} (a top-level leaf) can become {@link DirectPage}s that this class assembles. */
    public static boolean supportsField(Field field) {
        var t = field.getType();
        if (t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Bool) {
            return true;
        }
        if (t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Utf8 || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.Binary
                || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeUtf8
                || t instanceof org.apache.arrow.vector.types.pojo.ArrowType.LargeBinary) {
            return true;
        }
        if (t instanceof org.apache.arrow.vector.types.pojo.ArrowType.FixedSizeList) {
            return primitiveBits(field.getChildren().get(0)) > 0;
        }
        return primitiveBits(field) > 0;
    }

    /** The vector of rows {@code [from, to)}, or null when this page/field pair needs the general path. */
    public static FieldVector toVector(Field field, DirectPage page, int from, int to, BufferAllocator allocator) {
        return toVector(field, List.of(page), new int[] {from}, new int[] {to}, allocator);
    }

    /**
     * The vector of rows {@code [from[i], to[i])} of {@code pages[i]}, concatenated, or null when a page/field
     * pair needs the general path. One piece is wrapped without copying; several (a batch straddling pages)
     * are copied once, natively, into new buffers.
     */
    public static FieldVector toVector(Field field, List<DirectPage> pages, int[] from, int[] to, BufferAllocator allocator) {
        String kind = check(field, pages, from, to);
        if (kind == null) {
            return null;
        }
        FieldVector v = field.createVector(allocator);
        try {
            load(v, kind, pages, from, to, allocator);
            return v;
        } catch (RuntimeException | Error e) {
            v.close();
            throw e;
        }
    }

    /** The common kind of the page/field pairs of one leaf's slices, or null when one needs the general path. */
    static String check(Field field, List<DirectPage> pages, int[] from, int[] to) {
        String kind = null;
        for (int i = 0; i < pages.size(); i++) {
            DirectPage p = pages.get(i);
            String k = kind(field, p);
            if (k == null || (kind != null && !kind.equals(k)) || from[i] < 0 || to[i] > p.count() || from[i] > to[i]) {
                return null;
            }
            kind = k;
        }
        return kind;
    }

    /** Loads the rows {@code [from[i], to[i])} of the pages (of {@link #check}ed {@code kind}) into {@code v}. */
    static void load(FieldVector v, String kind, List<DirectPage> pages, int[] from, int[] to, BufferAllocator allocator) {
        int n = 0;
        for (int i = 0; i < pages.size(); i++) {
            n = Math.addExact(n, to[i] - from[i]);
        }
        FieldVector target = v;
        if (kind.equals("fsl")) {
            target = ((FixedSizeListVector) v).getDataVector();
        }
        boolean variable = kind.startsWith("var");
        boolean bool = kind.equals("bool");
        if (variable ? !(v instanceof BaseVariableWidthVector) && !(v instanceof BaseLargeVariableWidthVector)
                : bool ? !(v instanceof BitVector) : !(target instanceof BaseFixedWidthVector) || target instanceof BitVector) {
            throw new IllegalStateException("vector " + v.getClass().getSimpleName() + " for " + kind + " pages");
        }
        ArrowBuf validity = null;
        ArrowBuf offsets = null;
        ArrowBuf data = null;
        try {
            long nulls = 0;
            for (int i = 0; i < pages.size(); i++) {
                nulls += pages.get(i).nullCount(from[i], to[i]);
            }
            validity = nulls == 0 ? allocator.getEmpty() : validity(pages, from, to, 0, allocator);
            if (bool) {
                data = bits(pages, from, to, n, allocator);
            } else if (pages.size() == 1) {
                DirectPage p = pages.get(0);
                long b0 = p.byteStart(from[0]);
                long b1 = p.byteStart(to[0]);
                data = p.wrap(allocator, b0, b1 - b0);
            } else {
                long total = 0;
                for (int i = 0; i < pages.size(); i++) {
                    total += pages.get(i).byteStart(to[i]) - pages.get(i).byteStart(from[i]);
                }
                data = allocator.buffer(Math.max(total, 1));
                MemorySegment dst = segment(data, Math.max(total, 1));
                long at = 0;
                for (int i = 0; i < pages.size(); i++) {
                    DirectPage p = pages.get(i);
                    long b0 = p.byteStart(from[i]);
                    long len = p.byteStart(to[i]) - b0;
                    MemorySegment.copy(p.data(), b0, dst, at, len);
                    at += len;
                }
            }
            if (variable) {
                int w = kind.equals("var64") ? 8 : 4;
                offsets = allocator.buffer((long) (n + 1) * w);
                MemorySegment dst = segment(offsets, (long) (n + 1) * w);
                Kernels k = Kernels.get();
                long base = 0;
                int at = 0;
                for (int i = 0; i < pages.size(); i++) {
                    DirectPage p = pages.get(i);
                    int m = to[i] - from[i];
                    long b0 = p.byteStart(from[i]);
                    if (w == 8) {
                        k.rebaseOffsets64to64(p.offsets(), 8L * from[i], m + 1, base - b0, dst, 8L * at);
                    } else {
                        for (int j = 0; j <= m; j++) {
                            long o = p.offsets().getAtIndex(DirectPage.LONG_LE, from[i] + j) - b0 + base;
                            if (o > Integer.MAX_VALUE) {
                                throw new IllegalStateException("batch of " + o + " string bytes needs large offsets");
                            }
                            dst.setAtIndex(INT_LE, at + j, (int) o);
                        }
                    }
                    base += p.byteStart(to[i]) - b0;
                    at += m;
                }
                ArrowBuf[] bufs = {validity, offsets, data};
                validity = offsets = data = null; // load takes them over, even when it fails
                load(v, n, nulls, bufs);
            } else if (kind.equals("fsl")) {
                ArrowBuf valid = validity;
                validity = null;
                load(v, n, nulls, valid);
                ArrowBuf values = data;
                data = null;
                load(target, n * ((FixedSizeListVector) v).getListSize(), 0, allocator.getEmpty(), values);
            } else {
                ArrowBuf[] bufs = {validity, data};
                validity = data = null;
                load(v, n, nulls, bufs);
            }
        } catch (RuntimeException | Error e) {
            for (ArrowBuf b : new ArrowBuf[] {validity, offsets, data}) {
                if (b != null) {
                    b.close();
                }
            }
            throw e;
        }
    }

    private static MemorySegment segment(ArrowBuf b, long size) {
        return MemorySegment.ofAddress(b.memoryAddress()).reinterpret(size);
    }

    /**
     * The batch's validity: a slice of the page bitmap wrapped when it is byte-aligned and ends at a byte or
     * the page's end (so no bits of other rows are visible); otherwise the bits are copied.
     */
    static ArrowBuf validity(List<DirectPage> pages, int[] from, int[] to, int layer, BufferAllocator allocator) {
        int n = 0;
        for (int i = 0; i < pages.size(); i++) {
            n += to[i] - from[i];
        }
        if (pages.size() == 1) {
            DirectPage p = pages.get(0);
            MemorySegment v = p.layerValidity(layer);
            int end = p.list() && layer >= p.listLayer() ? p.rows() : p.count(); // row layers of a list page count rows
            if (v != null && (from[0] & 7) == 0 && ((to[0] - from[0]) % 8 == 0 || to[0] == end)) {
                return p.wrap(allocator, v, from[0] >>> 3, Bits.bytesFor(to[0] - from[0]));
            }
        }
        int bytes = Bits.bytesFor(n);
        ArrowBuf b = allocator.buffer(Math.max(bytes, 1));
        try {
            b.setZero(0, b.capacity());
            MemorySegment dst = segment(b, Math.max(bytes, 1));
            Kernels k = Kernels.get();
            long at = 0;
            for (int i = 0; i < pages.size(); i++) {
                DirectPage p = pages.get(i);
                int m = to[i] - from[i];
                if (p.layerValidity(layer) == null) {
                    k.fillBits(dst, at, m, true);
                } else {
                    k.copyBits(p.layerValidity(layer), from[i], dst, at, m);
                }
                at += m;
            }
            return b;
        } catch (RuntimeException | Error e) {
            b.close();
            throw e;
        }
    }

    /**
     * Boolean values: the page's bitmap wrapped when the rows start on a byte and end on one (or at the
     * page's end, whose trailing bits are clear), else the bits are copied (shifted) into a new buffer.
     */
    private static ArrowBuf bits(List<DirectPage> pages, int[] from, int[] to, int n, BufferAllocator allocator) {
        if (pages.size() == 1) {
            DirectPage p = pages.get(0);
            if ((from[0] & 7) == 0 && ((to[0] - from[0]) % 8 == 0 || to[0] == p.count())) {
                return p.wrap(allocator, p.data(), from[0] >>> 3, Bits.bytesFor(to[0] - from[0]));
            }
        }
        int bytes = Bits.bytesFor(n);
        ArrowBuf b = allocator.buffer(Math.max(bytes, 1));
        try {
            b.setZero(0, b.capacity());
            MemorySegment dst = segment(b, Math.max(bytes, 1));
            long at = 0;
            for (int i = 0; i < pages.size(); i++) {
                Kernels.get().copyBits(pages.get(i).data(), from[i], dst, at, to[i] - from[i]);
                at += to[i] - from[i];
            }
            return b;
        } catch (RuntimeException | Error e) {
            b.close();
            throw e;
        }
    }

    /** Loads the buffers (the vector retains them) and drops the caller's references. */
    static void load(FieldVector v, int length, long nulls, ArrowBuf... bufs) {
        try {
            v.loadFieldBuffers(new ArrowFieldNode(length, nulls), List.of(bufs));
        } finally {
            for (ArrowBuf b : bufs) {
                b.close();
            }
        }
    }
}
