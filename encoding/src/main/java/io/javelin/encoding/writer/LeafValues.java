package io.javelin.encoding.writer;

import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * The buffered values of one leaf column for the page being built: visible value slots only (a null
 * slot holds zeros / an empty value). Booleans are one byte per value here and bit-packed on encode.
 */
public final class LeafValues {
    private final LeafType type;
    private final Bytes data = new Bytes(1024);
    private long[] ends = new long[0];
    private int count;
    private long maxLen;
    /** FSL: per layer (outer→inner) item validity, one byte per item; allocated lazily. */
    private final Bytes[] validity;
    private final boolean[] layerHasNull;

    public LeafValues(LeafType type) {
        this.type = type;
        if (type.kind() == LeafType.Kind.VARIABLE) {
            ends = new long[256];
        }
        int layers = type.dims() == null ? 0 : type.dims().length;
        validity = new Bytes[layers];
        layerHasNull = new boolean[layers];
        for (int i = 0; i < layers; i++) {
            validity[i] = new Bytes(256);
        }
    }

    public LeafType type() {
        return type;
    }

    public int count() {
        return count;
    }

    public Bytes data() {
        return data;
    }

    /** End offset of value {@code i} in {@link #data()} (variable width). */
    public long end(int i) {
        return ends[i];
    }

    public long start(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    public long maxLen() {
        return maxLen;
    }

    public boolean layerHasNull(int layer) {
        return layerHasNull[layer];
    }

    public Bytes validity(int layer) {
        return validity[layer];
    }

    public int layers() {
        return validity.length;
    }

    /** Bytes held, for the page-size trigger. */
    public long bufferedBytes() {
        long b = data.size() + (type.kind() == LeafType.Kind.VARIABLE ? 8L * count : 0);
        for (Bytes v : validity) {
            b += v.size() / 8;
        }
        return b;
    }

    /** Appends a null (visible) slot. */
    public void appendNull() {
        switch (type.kind()) {
            case FIXED -> data.zeros(type.byteWidth());
            case BOOL -> data.u8(0);
            case VARIABLE -> pushEnd(data.size());
            case FSL -> {
                data.zeros(type.valueBytes());
                int n = 1;
                for (int l = 0; l < validity.length; l++) {
                    n *= type.dims()[l];
                    validity[l].fill(n, (byte) 0);
                }
            }
        }
        count++;
    }

    /** Appends the (non-null) value at {@code idx} of {@code v}. */
    public void append(ValueVector v, int idx) {
        switch (type.kind()) {
            case FIXED -> {
                if (type.packed() != null) {
                    org.apache.arrow.vector.complex.StructVector sv = (org.apache.arrow.vector.complex.StructVector) v;
                    for (int c = 0; c < type.packed().length; c++) {
                        int cw = type.packed()[c];
                        BaseFixedWidthVector child = (BaseFixedWidthVector) sv.getChildByOrdinal(c);
                        data.ensure(cw);
                        if (child.isNull(idx)) {
                            data.zeros(cw);
                        } else {
                            child.getDataBuffer().getBytes((long) idx * cw, data.array(), data.size(), cw);
                            advance(cw);
                        }
                    }
                    break;
                }
                int w = type.byteWidth();
                data.ensure(w);
                ((BaseFixedWidthVector) v).getDataBuffer().getBytes((long) idx * w, data.array(), data.size(), w);
                advance(w);
            }
            case BOOL -> data.u8(((BitVector) v).getDataBuffer().getByte(idx >> 3) >> (idx & 7) & 1);
            case VARIABLE -> {
                long s;
                long e;
                ArrowBuf buf;
                if (v instanceof BaseVariableWidthVector bv) {
                    s = bv.getStartOffset(idx);
                    e = bv.getStartOffset(idx + 1);
                    buf = bv.getDataBuffer();
                } else {
                    BaseLargeVariableWidthVector bv = (BaseLargeVariableWidthVector) v;
                    s = bv.getOffsetBuffer().getLong((long) idx * 8);
                    e = bv.getOffsetBuffer().getLong((long) (idx + 1) * 8);
                    buf = bv.getDataBuffer();
                }
                int len = Math.toIntExact(e - s);
                data.ensure(len);
                buf.getBytes(s, data.array(), data.size(), len);
                advance(len);
                maxLen = Math.max(maxLen, len);
                pushEnd(data.size());
            }
            case FSL -> appendFsl((FixedSizeListVector) v, idx, 0, 1);
        }
        count++;
    }

    /** Appends {@code n} consecutive non-null fixed-width values starting at {@code idx} (bulk path). */
    public void appendFixedRun(ValueVector v, int idx, int n) {
        int w = type.byteWidth();
        int len = Math.multiplyExact(w, n);
        data.ensure(len);
        ((BaseFixedWidthVector) v).getDataBuffer().getBytes((long) idx * w, data.array(), data.size(), len);
        advance(len);
        count += n;
    }

    /**
     * Appends {@code n} consecutive non-null rows of a one-level fixed-size list whose items have no
     * nulls ({@code itemsValid}) in one copy; otherwise item validity is read per item.
     */
    public void appendFslRun(FixedSizeListVector v, int idx, int n, boolean itemsValid) {
        if (!itemsValid || type.dims().length != 1) {
            for (int i = 0; i < n; i++) {
                append(v, idx + i);
            }
            return;
        }
        int dim = type.dims()[0];
        int items = Math.multiplyExact(dim, n);
        validity[0].fill(items, (byte) 1);
        int w = type.byteWidth();
        int len = Math.multiplyExact(w, items);
        data.ensure(len);
        ((BaseFixedWidthVector) v.getDataVector()).getDataBuffer()
                .getBytes((long) idx * dim * w, data.array(), data.size(), len);
        advance(len);
        count += n;
    }

    /** Appends {@code n} consecutive non-null values of a variable-width vector in one copy. */
    public void appendVarRun(ValueVector v, int idx, int n) {
        ArrowBuf offs;
        ArrowBuf buf;
        boolean large = !(v instanceof BaseVariableWidthVector);
        if (!large) {
            BaseVariableWidthVector bv = (BaseVariableWidthVector) v;
            offs = bv.getOffsetBuffer();
            buf = bv.getDataBuffer();
        } else {
            BaseLargeVariableWidthVector bv = (BaseLargeVariableWidthVector) v;
            offs = bv.getOffsetBuffer();
            buf = bv.getDataBuffer();
        }
        long first = large ? offs.getLong((long) idx * 8) : offs.getInt((long) idx * 4);
        long last = large ? offs.getLong((long) (idx + n) * 8) : offs.getInt((long) (idx + n) * 4);
        int len = Math.toIntExact(last - first);
        data.ensure(len);
        long base = data.size() - first;
        buf.getBytes(first, data.array(), data.size(), len);
        advance(len);
        if (count + n > ends.length) {
            ends = java.util.Arrays.copyOf(ends, Math.max(count + n, ends.length * 2));
        }
        long prev = first;
        long max = maxLen;
        for (int i = 1; i <= n; i++) {
            long e = large ? offs.getLong((long) (idx + i) * 8) : offs.getInt((long) (idx + i) * 4);
            max = Math.max(max, e - prev);
            prev = e;
            ends[count++] = base + e;
        }
        maxLen = max;
    }

    private void appendFsl(FixedSizeListVector v, int idx, int layer, int rows) {
        int dim = type.dims()[layer];
        FieldVector child = v.getDataVector();
        int start = idx * dim;
        int n = dim * rows;
        Bytes val = validity[layer];
        val.ensure(n);
        byte[] dst = val.array();
        int at = val.size();
        boolean anyNull = false;
        for (int j = 0; j < n; j++) {
            boolean nul = child.isNull(start + j);
            anyNull |= nul;
            dst[at + j] = (byte) (nul ? 0 : 1);
        }
        val.skip(n);
        if (anyNull) {
            layerHasNull[layer] = true;
        }
        if (layer + 1 < type.dims().length) {
            appendFsl((FixedSizeListVector) child, start, layer + 1, n);
        } else {
            int w = type.byteWidth();
            int len = w * n;
            data.ensure(len);
            ((BaseFixedWidthVector) child).getDataBuffer().getBytes((long) start * w, data.array(), data.size(), len);
            advance(len);
        }
    }

    private void advance(int len) {
        // Bytes has no public "advance"; emulate via put of the already-copied region.
        data.skip(len);
    }

    private void pushEnd(long end) {
        if (count >= ends.length) {
            ends = java.util.Arrays.copyOf(ends, Math.max(256, ends.length * 2));
        }
        ends[count] = end;
    }

    public void clear() {
        data.clear();
        count = 0;
        maxLen = 0;
        for (int i = 0; i < validity.length; i++) {
            validity[i].clear();
            layerHasNull[i] = false;
        }
    }
}
