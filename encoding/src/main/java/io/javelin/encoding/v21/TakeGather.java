package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.arrow.Values;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * The vector of a take of a top-level leaf without repetition (byte-aligned primitives, strings/binaries,
 * fixed-size lists of primitives; nullable or not), gathered in the order of the requested rows (repeats
 * and any order) straight into the vector's native buffers: one copy from the decoded rows, no value
 * builder, no {@code Node} tree. Sources are the take's partially decoded pages
 * ({@link StructuralFieldReader.SparseRows}), whole heap pages ({@link LeafPage}) and native pages
 * ({@link DirectPage}). Anything else (nested fields, booleans, item validity) returns null: the general
 * path assembles it.
 */
final class TakeGather {

    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Vectors built here (tests). */
    static final java.util.concurrent.atomic.LongAdder BUILT = new java.util.concurrent.atomic.LongAdder();

    private TakeGather() {
    }

    /** A page's rows as one view: heap values + def levels, or a native page. */
    private record Source(long[] sparseRows, Values values, short[] def, DirectPage direct) {

        /** Value slot of page-local row {@code row}, or -1 when the page does not hold it. */
        int slot(long row) {
            if (sparseRows == null) {
                return row < count() ? (int) row : -1;
            }
            int i = java.util.Arrays.binarySearch(sparseRows, row);
            return i < 0 ? -1 : i;
        }

        int count() {
            return direct != null ? direct.count() : values.count();
        }

        boolean valid(int slot) {
            if (direct != null) {
                MemorySegment v = direct.validity();
                return v == null || (v.get(ValueLayout.JAVA_BYTE, slot >>> 3) & (1 << (slot & 7))) != 0;
            }
            return def == null || def[slot] == 0;
        }

        long bytes(int slot, int width) {
            if (direct != null) {
                return direct.byteStart(slot + 1) - direct.byteStart(slot);
            }
            if (values instanceof Values.Var var) {
                return var.offsets()[slot + 1] - var.offsets()[slot];
            }
            return width;
        }
    }

    /** Arrow shape of the field: bytes per fixed value, or 0 with offsets of 4 or 8 bytes; null if not handled. */
    private record Shape(int width, int offsetBytes, int listSize) {
    }

    private static Shape shape(Field field) {
        ArrowType t = field.getType();
        if (t instanceof ArrowType.Utf8 || t instanceof ArrowType.Binary) {
            return new Shape(0, 4, 0);
        }
        if (t instanceof ArrowType.LargeUtf8 || t instanceof ArrowType.LargeBinary) {
            return new Shape(0, 8, 0);
        }
        if (t instanceof ArrowType.FixedSizeList fsl) {
            Field item = field.getChildren().get(0);
            int bits = primitiveBits(item.getType());
            return bits > 0 && bits % 8 == 0 && fsl.getListSize() > 0 ? new Shape(bits / 8 * fsl.getListSize(), 0, fsl.getListSize()) : null;
        }
        int bits = primitiveBits(t);
        return bits > 0 && bits % 8 == 0 ? new Shape(bits / 8, 0, 0) : null;
    }

    private static int primitiveBits(ArrowType t) {
        return switch (t) {
            case ArrowType.Int i -> i.getBitWidth();
            case ArrowType.FloatingPoint fp -> LeafKind.fixedBits(fp);
            case ArrowType.Date d -> LeafKind.fixedBits(d);
            case ArrowType.Time tm -> tm.getBitWidth();
            case ArrowType.Timestamp ts -> 64;
            case ArrowType.Duration du -> 64;
            case ArrowType.Decimal dec -> dec.getBitWidth();
            case ArrowType.FixedSizeBinary fsb -> fsb.getByteWidth() * 8;
            default -> -1;
        };
    }

    private static Source source(Object decoded, Shape shape) {
        long[] sparse = null;
        LeafPage lp;
        if (decoded instanceof StructuralFieldReader.SparseRows sr) {
            sparse = sr.rows();
            lp = sr.page();
        } else if (decoded instanceof LeafPage p) {
            lp = p;
        } else if (decoded instanceof DirectPage dp) {
            boolean ok = shape.width == 0 ? dp.variable() : !dp.variable() && dp.bitsPerValue() == shape.width * 8;
            return ok ? new Source(null, null, null, dp) : null;
        } else {
            return null;
        }
        if (lp.rep != null || lp.numLevels != lp.numRows || lp.values.count() != lp.numRows
                || sparse != null && sparse.length != lp.numRows) {
            return null;
        }
        if (shape.width == 0 ? !(lp.values instanceof Values.Var)
                : !(lp.values instanceof Values.Fixed f) || f.itemValidity() != null || f.bitsPerValue() != shape.width * 8) {
            return null;
        }
        return new Source(sparse, lp.values, lp.def, null);
    }

    /**
     * The vector of the rows of {@code ranges} (in order) of a leaf whose page p starts at row
     * {@code starts[p]} and is {@code page.apply(p)}; null when some page or the field needs the general path.
     */
    static FieldVector toVector(String resource, Field field, long[] starts, IntFunction<Object> page, List<long[]> ranges,
                                BufferAllocator allocator) {
        Shape shape = shape(field);
        if (shape == null) {
            return null;
        }
        long total = 0;
        for (long[] r : ranges) {
            total += r[1] - r[0];
        }
        if (total > Integer.MAX_VALUE - 1) {
            return null;
        }
        int n = (int) total;
        // resolve every output row to (source, slot) first: nothing is allocated for a take the general path must do
        Map<Integer, Source> byPage = new java.util.HashMap<>();
        List<Source> sources = new ArrayList<>();
        Map<Source, Integer> index = new IdentityHashMap<>();
        int[] src = new int[n];
        int[] slot = new int[n];
        long dataBytes = 0;
        long nulls = 0;
        int o = 0;
        int p = -1;
        for (long[] r : ranges) {
            for (long row = r[0]; row < r[1]; row++, o++) {
                if (p < 0 || row < starts[p] || row >= starts[p + 1]) {
                    p = pageOf(starts, row);
                    if (p < 0) {
                        throw new CorruptFileException(resource, -1, "Row " + row + " in no page");
                    }
                }
                int pp = p;
                Source s = byPage.get(pp);
                if (s == null) {
                    Object decoded = page.apply(pp);
                    s = decoded == null ? null : source(decoded, shape);
                    if (s == null) {
                        return null;
                    }
                    byPage.put(pp, s);
                    index.put(s, sources.size());
                    sources.add(s);
                }
                int k = s.slot(row - starts[pp]);
                if (k < 0 || k >= s.count()) {
                    throw new IllegalStateException("row " + row + " was not planned");
                }
                src[o] = index.get(s);
                slot[o] = k;
                if (!s.valid(k)) {
                    nulls++;
                }
                if (shape.width == 0) {
                    dataBytes += s.bytes(k, 0);
                }
            }
        }
        if (shape.width == 0 && shape.offsetBytes == 4 && dataBytes > Integer.MAX_VALUE) {
            return null; // too large for 32-bit offsets: the general path reports it
        }
        FieldVector v = field.createVector(allocator);
        FieldVector target = shape.listSize > 0 ? ((FixedSizeListVector) v).getDataVector() : v;
        boolean variable = shape.width == 0;
        if (variable ? !(v instanceof BaseVariableWidthVector) && !(v instanceof BaseLargeVariableWidthVector)
                : !(target instanceof BaseFixedWidthVector) || target instanceof BitVector) {
            v.close();
            return null;
        }
        ArrowBuf validity = null;
        ArrowBuf offsets = null;
        ArrowBuf data = null;
        try {
            if (nulls > 0) {
                int vb = (n + 7) >>> 3;
                validity = allocator.buffer(Math.max(vb, 1));
                validity.setZero(0, validity.capacity());
                MemorySegment bits = seg(validity, Math.max(vb, 1));
                for (int i = 0; i < n; i++) {
                    if (sources.get(src[i]).valid(slot[i])) {
                        bits.set(ValueLayout.JAVA_BYTE, i >>> 3, (byte) (bits.get(ValueLayout.JAVA_BYTE, i >>> 3) | (1 << (i & 7))));
                    }
                }
            } else {
                validity = allocator.getEmpty();
            }
            long size = variable ? dataBytes : (long) n * shape.width;
            data = allocator.buffer(Math.max(size, 1));
            MemorySegment dst = seg(data, Math.max(size, 1));
            MemorySegment off = null;
            if (variable) {
                offsets = allocator.buffer((long) (n + 1) * shape.offsetBytes);
                off = seg(offsets, (long) (n + 1) * shape.offsetBytes);
            }
            long at = 0;
            for (int i = 0; i < n; i++) {
                Source s = sources.get(src[i]);
                int k = slot[i];
                if (off != null) {
                    if (shape.offsetBytes == 4) {
                        off.setAtIndex(INT_LE, i, (int) at);
                    } else {
                        off.setAtIndex(LONG_LE, i, at);
                    }
                }
                long len;
                if (s.direct != null) {
                    long b0 = s.direct.byteStart(k);
                    len = s.direct.byteStart(k + 1) - b0;
                    MemorySegment.copy(s.direct.data(), b0, dst, at, len);
                } else if (s.values instanceof Values.Var var) {
                    long b0 = var.offsets()[k];
                    len = var.offsets()[k + 1] - b0;
                    MemorySegment.copy(var.data(), (int) b0, dst, ValueLayout.JAVA_BYTE, at, (int) len);
                } else {
                    len = shape.width;
                    MemorySegment.copy(((Values.Fixed) s.values).data(), k * shape.width, dst, ValueLayout.JAVA_BYTE, at, shape.width);
                }
                at += len;
            }
            if (off != null) {
                if (shape.offsetBytes == 4) {
                    off.setAtIndex(INT_LE, n, (int) at);
                } else {
                    off.setAtIndex(LONG_LE, n, at);
                }
                ArrowBuf[] bufs = {validity, offsets, data};
                validity = offsets = data = null; // load takes them over, even when it fails
                load(v, n, nulls, bufs);
            } else if (shape.listSize > 0) {
                ArrowBuf valid = validity;
                validity = null;
                load(v, n, nulls, valid);
                ArrowBuf values = data;
                data = null;
                load(target, n * shape.listSize, 0, allocator.getEmpty(), values);
            } else {
                ArrowBuf[] bufs = {validity, data};
                validity = data = null;
                load(v, n, nulls, bufs);
            }
            BUILT.increment();
            return v;
        } catch (RuntimeException | Error e) {
            for (ArrowBuf b : new ArrowBuf[] {validity, offsets, data}) {
                if (b != null) {
                    b.close();
                }
            }
            v.close();
            throw e;
        }
    }

    private static int pageOf(long[] starts, long row) {
        int i = java.util.Arrays.binarySearch(starts, row);
        int p = i >= 0 ? i : -i - 2;
        while (p >= 0 && p < starts.length - 2 && starts[p + 1] <= row) {
            p++; // skip empty pages at the same start
        }
        return p < 0 || p >= starts.length - 1 || row >= starts[p + 1] ? -1 : p;
    }

    private static MemorySegment seg(ArrowBuf b, long size) {
        return MemorySegment.ofAddress(b.memoryAddress()).reinterpret(size);
    }

    /** Loads the buffers (the vector retains them) and drops the caller's references. */
    private static void load(FieldVector v, int length, long nulls, ArrowBuf... bufs) {
        try {
            v.loadFieldBuffers(new ArrowFieldNode(length, nulls), List.of(bufs));
        } finally {
            for (ArrowBuf b : bufs) {
                b.close();
            }
        }
    }
}
