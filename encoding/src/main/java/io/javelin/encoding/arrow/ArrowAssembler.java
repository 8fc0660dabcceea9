package io.javelin.encoding.arrow;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;

/** Turns a {@link Node} tree into an Arrow vector of the field's type. */
public final class ArrowAssembler {

    private static final java.lang.foreign.ValueLayout.OfLong LONG_LE =
            java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);
    private static final java.lang.foreign.ValueLayout.OfInt INT_LE =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private ArrowAssembler() {
    }

    public static FieldVector toVector(Field field, Node node, BufferAllocator allocator) {
        FieldVector v = field.createVector(allocator);
        try {
            load(v, node, allocator);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }

    private static void load(FieldVector v, Node n, BufferAllocator a) {
        List<ArrowBuf> bufs = new ArrayList<>();
        try {
            bufs.add(validity(n, a));
            if (v instanceof NullVector) {
                bufs.clear();
                v.loadFieldBuffers(new ArrowFieldNode(n.length(), n.length()), bufs);
                return;
            } else if (v instanceof StructVector s) {
                v.loadFieldBuffers(new ArrowFieldNode(n.length(), n.nullCount()), bufs);
                List<FieldVector> kids = s.getChildrenFromFields();
                for (int i = 0; i < kids.size(); i++) {
                    load(kids.get(i), n.children().get(i), a);
                }
                return;
            } else if (v instanceof LargeListVector l) {
                bufs.add(offsets(n.offsets(), n.length(), 8, a));
                v.loadFieldBuffers(new ArrowFieldNode(n.length(), n.nullCount()), bufs);
                load(l.getDataVector(), n.children().get(0), a);
                return;
            } else if (v instanceof ListVector l) {
                bufs.add(offsets(n.offsets(), n.length(), 4, a));
                v.loadFieldBuffers(new ArrowFieldNode(n.length(), n.nullCount()), bufs);
                load(l.getDataVector(), n.children().get(0), a);
                return;
            } else if (v instanceof FixedSizeListVector l) {
                v.loadFieldBuffers(new ArrowFieldNode(n.length(), n.nullCount()), bufs);
                load(l.getDataVector(), n.children().get(0), a);
                return;
            } else if (v instanceof BaseVariableWidthVector || v instanceof BaseLargeVariableWidthVector) {
                Values.Var var = (Values.Var) n.values();
                bufs.add(offsets(var.offsets(), n.length(), v instanceof BaseLargeVariableWidthVector ? 8 : 4, a));
                bufs.add(bytes(var.data(), a));
            } else if (v instanceof BitVector) {
                Values.Fixed f = (Values.Fixed) n.values();
                bufs.add(bytes(f.data(), Bits.bytesFor(n.length()), a));
            } else if (v instanceof BaseFixedWidthVector fw) {
                Values.Fixed f = (Values.Fixed) n.values();
                bufs.add(bytes(f.data(), (long) n.length() * fw.getTypeWidth(), a));
            } else {
                throw new UnsupportedOperationException("vector " + v.getClass().getSimpleName());
            }
            v.loadFieldBuffers(new ArrowFieldNode(n.length(), n.nullCount()), bufs);
        } finally {
            for (ArrowBuf b : bufs) {
                b.close();
            }
        }
    }

    private static ArrowBuf validity(Node n, BufferAllocator a) {
        int len = Bits.bytesFor(n.length());
        ArrowBuf b = a.buffer(Math.max(len, 1));
        if (n.validity() == null) {
            b.setOne(0, len);
            // clear bits past length so that the bitmap is canonical
            if ((n.length() & 7) != 0) {
                b.setByte(len - 1, (1 << (n.length() & 7)) - 1);
            }
        } else {
            b.setBytes(0, n.validity(), 0, len);
        }
        return b;
    }

    private static ArrowBuf offsets(long[] offsets, int length, int width, BufferAllocator a) {
        long bytes = (long) (length + 1) * width;
        ArrowBuf b = a.buffer(bytes);
        java.lang.foreign.MemorySegment dst = java.lang.foreign.MemorySegment.ofBuffer(b.nioBuffer(0, (int) bytes));
        if (width == 8) {
            java.lang.foreign.MemorySegment.copy(offsets, 0, dst, LONG_LE, 0, length + 1);
        } else {
            for (int i = 0; i <= length; i++) {
                dst.set(INT_LE, (long) i * 4, (int) offsets[i]);
            }
        }
        return b;
    }

    private static ArrowBuf bytes(byte[] data, BufferAllocator a) {
        return bytes(data, data.length, a);
    }

    private static ArrowBuf bytes(byte[] data, long len, BufferAllocator a) {
        ArrowBuf b = a.buffer(Math.max(len, 1));
        b.setBytes(0, data, 0, Math.min(len, data.length));
        if (data.length < len) {
            b.setZero(data.length, len - data.length);
        }
        return b;
    }
}
