package io.javelin.encoding.arrow;

import io.javelin.encoding.io.SharedMemory;
import io.javelin.encoding.kernel.Kernels;
import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;

/**
 * A decoded page of a top-level leaf whose values sit in native memory in Arrow layout: fixed-width values
 * back to back, or variable-width bytes with page-relative native int64 offsets ({@code count + 1}, from 0),
 * plus an optional native validity bitmap (LSB first, bit i = row i; null when every row is valid). Batches
 * wrap slices of it as Arrow buffers without copying ({@link #wrap}); each wrapped buffer holds a reference
 * on the memory, so the page can be dropped from a scan's cache while batches still use it. {@link #close()}
 * drops the page's own reference (idempotent).
 */
public final class DirectPage implements AutoCloseable {

    static final ValueLayout.OfLong LONG_LE = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final int count;
    private final int bitsPerValue;
    private final int itemsPerValue;
    private final MemorySegment offsets;
    private final MemorySegment data;
    private final MemorySegment validity;
    private final SharedMemory memory;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** Validity of the enclosing struct layers (index = rep/def layer, 0 unused; null entry = all valid). */
    private MemorySegment[] outer = new MemorySegment[1];
    /** Per layer, the definition level that makes it null (for rebuilding levels on the general path). */
    private int[] nullDef = {1};

    private DirectPage(int count, int bitsPerValue, int itemsPerValue, MemorySegment offsets, MemorySegment data,
                       MemorySegment validity, SharedMemory memory) {
        if (!data.isNative() || offsets != null && !offsets.isNative() || validity != null && !validity.isNative()) {
            throw new IllegalArgumentException("direct pages need native memory");
        }
        if (offsets != null && offsets.byteSize() < 8L * (count + 1) || validity != null && validity.byteSize() < Bits.bytesFor(count)
                || bitsPerValue == 1 && data.byteSize() < Bits.bytesFor(count)) {
            throw new IllegalArgumentException("offsets or validity too short for " + count + " values");
        }
        this.count = count;
        this.bitsPerValue = bitsPerValue;
        this.itemsPerValue = Math.max(1, itemsPerValue);
        this.offsets = offsets;
        this.data = data;
        this.validity = validity;
        this.memory = memory;
    }

    /**
     * {@code count} fixed-width values of {@code bitsPerValue} (a multiple of 8) bits ({@code itemsPerValue}
     * items each for fixed-size lists); takes a reference on {@code memory}.
     */
    public static DirectPage fixed(int count, int bitsPerValue, int itemsPerValue, MemorySegment data, SharedMemory memory) {
        return fixed(count, bitsPerValue, itemsPerValue, data, null, memory);
    }

    /** As {@link #fixed(int, int, int, MemorySegment, SharedMemory)} with a validity bitmap (null = all valid). */
    public static DirectPage fixed(int count, int bitsPerValue, int itemsPerValue, MemorySegment data, MemorySegment validity,
                                   SharedMemory memory) {
        if (bitsPerValue <= 0 || bitsPerValue % 8 != 0 || data.byteSize() < (long) count * (bitsPerValue / 8)) {
            throw new IllegalArgumentException("bad fixed page: " + count + " x " + bitsPerValue + " bits in " + data.byteSize() + " B");
        }
        return new DirectPage(count, bitsPerValue, itemsPerValue, null, data, validity, memory.retain());
    }

    /**
     * {@code count} booleans as an LSB-first bitmap ({@code data}, bits past {@code count} clear) with a
     * validity bitmap (null = all valid); takes a reference on {@code memory}.
     */
    public static DirectPage bits(int count, MemorySegment data, MemorySegment validity, SharedMemory memory) {
        return new DirectPage(count, 1, 1, null, data, validity, memory.retain());
    }

    /**
     * Adds the validity of the struct layers around the leaf (a page of a leaf inside structs without lists):
     * {@code layers[k]} is the bitmap of rep/def layer k (k >= 1, 0 = this page's own validity, ignored; null =
     * every row valid), {@code nullDef[k]} the definition level at which layer k becomes null. The bitmaps must
     * lie in this page's memory. Called by the decoder before the page is published.
     */
    public DirectPage withLayers(MemorySegment[] layers, int[] nullDef) {
        if (layers.length != nullDef.length || layers.length < 1) {
            throw new IllegalArgumentException("layers and levels disagree");
        }
        for (int k = 1; k < layers.length; k++) {
            int n = rowOffsets != null && k >= listLayer ? rows : count;
            if (layers[k] != null && (!layers[k].isNative() || layers[k].byteSize() < Bits.bytesFor(n))) {
                throw new IllegalArgumentException("layer " + k + " validity too short for " + n + " rows");
            }
        }
        this.outer = layers.clone();
        this.nullDef = nullDef.clone();
        return this;
    }

    /** List pages: rows of the page, their int64 item offsets ({@code rows + 1}), and the list's layer. */
    private int rows = -1;
    private MemorySegment rowOffsets;
    private int listLayer;

    /**
     * Makes this a page of a leaf under one list: the values and layers below {@code listLayer} are per item
     * ({@link #count()} items), the list's and outer layers' validity per row; {@code rowOffsets} holds
     * {@code rows + 1} native little-endian int64 item offsets (from 0). Called by the decoder before the page
     * is published, with the validity of every layer ({@link #withLayers}).
     */
    public DirectPage withList(int rows, MemorySegment rowOffsets, int listLayer, MemorySegment[] layers, int[] nullDef) {
        if (!rowOffsets.isNative() || rowOffsets.byteSize() < 8L * (rows + 1) || listLayer < 1 || listLayer >= layers.length) {
            throw new IllegalArgumentException("bad list of " + rows + " rows at layer " + listLayer);
        }
        this.rows = rows;
        this.rowOffsets = rowOffsets;
        this.listLayer = listLayer;
        return withLayers(layers, nullDef);
    }

    /** True for a page of a leaf under a list ({@link #withList}). */
    public boolean list() {
        return rowOffsets != null;
    }

    /** Rows of the page: {@link #count()} unless this is a list page. */
    public int rows() {
        return rowOffsets == null ? count : rows;
    }

    /** The layer of the list (list pages only); layers below it are per item, it and those above per row. */
    public int listLayer() {
        return listLayer;
    }

    /** First item of row {@code row} (list pages; {@code rows()} gives the item count). */
    public long rowOffset(int row) {
        return rowOffsets.getAtIndex(LONG_LE, row);
    }

    /** The native int64 item offsets of the rows (list pages only). */
    public MemorySegment rowOffsets() {
        return rowOffsets;
    }

    /** Definition level at which layer {@code k} becomes null. */
    public int nullDef(int k) {
        return nullDef[k];
    }

    /** Rep/def layers this page carries validity for (1 for a top-level leaf). */
    public int numLayers() {
        return outer.length;
    }

    /** Validity of rep/def layer {@code k} (0 = the values' own), or null when every row is valid there. */
    public MemorySegment layerValidity(int k) {
        return k == 0 ? validity : outer[k];
    }

    /** Nulls of layer {@code k} among rows {@code [from, to)}. */
    public long nullCount(int k, int from, int to) {
        MemorySegment v = layerValidity(k);
        return v == null || to <= from ? 0 : (to - from) - Kernels.get().countSetBits(v, from, to - from);
    }

    /** True for a page of booleans (an LSB-first bitmap of values). */
    public boolean bitmap() {
        return bitsPerValue == 1;
    }

    /**
     * Variable-width values: {@code offsets} ({@code count + 1} native little-endian int64, from 0) into
     * {@code data}; validity may be null; takes a reference on {@code memory}.
     */
    public static DirectPage variable(int count, MemorySegment offsets, MemorySegment data, MemorySegment validity,
                                      SharedMemory memory) {
        return new DirectPage(count, 0, 1, offsets, data, validity, memory.retain());
    }

    /**
     * Copies heap values (no item validity) into fresh native memory owned by the page; {@code validity}
     * (heap, LSB first, null = all valid) is copied too.
     */
    public static DirectPage copyOf(Values v, byte[] validity, String label) {
        return copyOf(v, new byte[][] {validity}, new int[] {1}, label);
    }

    /**
     * As {@link #copyOf(Values, byte[], String)} for a leaf inside structs: {@code layers[k]} is the heap
     * validity of rep/def layer k (0 = the values', null = all valid), {@code nullDef[k]} its null level.
     */
    public static DirectPage copyOf(Values v, byte[][] layers, int[] nullDef, String label) {
        int n = v.count();
        NativeBuffers bufs = new NativeBuffers(label);
        try {
            MemorySegment[] native_ = new MemorySegment[layers.length];
            for (int k = 0; k < layers.length; k++) {
                if (layers[k] != null) {
                    native_[k] = bitmapCopy(bufs, layers[k], n);
                }
            }
            MemorySegment valid = native_[0];
            DirectPage page = copyInto(bufs, v, valid);
            if (layers.length > 1) {
                try {
                    page.withLayers(native_, nullDef);
                } catch (RuntimeException e) {
                    page.close();
                    throw e;
                }
            }
            return page;
        } finally {
            bufs.release(); // the page holds its own reference now (or none, if it failed)
        }
    }

    /** Copies heap values (no item validity) into {@code bufs}; the page retains their memory. */
    public static DirectPage copyInto(NativeBuffers bufs, Values v, MemorySegment valid) {
        int n = v.count();
        if (v instanceof Values.Var var) {
            long size = var.offsets()[n] - var.offsets()[0];
            MemorySegment off = bufs.allocate(8L * (n + 1));
            MemorySegment data = bufs.allocate(Math.max(size, 1)).asSlice(0, size);
            MemorySegment.copy(MemorySegment.ofArray(var.data()), var.offsets()[0], data, 0, size);
            long base = var.offsets()[0];
            for (int i = 0; i <= n; i++) {
                off.setAtIndex(LONG_LE, i, var.offsets()[i] - base);
            }
            return variable(n, off, data, valid, bufs.shared());
        }
        Values.Fixed f = (Values.Fixed) v;
        if (f.bitsPerValue() == 1) {
            MemorySegment data = bufs.allocate(Bits.bytesFor(n));
            data.fill((byte) 0);
            Kernels.get().copyBits(MemorySegment.ofArray(f.data()), 0, data, 0, n);
            return bits(n, data, valid, bufs.shared());
        }
        long size = (long) n * (f.bitsPerValue() / 8);
        MemorySegment data = bufs.allocate(Math.max(size, 1)).asSlice(0, size);
        MemorySegment.copy(MemorySegment.ofArray(f.data()), 0, data, 0, size);
        return fixed(n, f.bitsPerValue(), f.itemsPerValue(), data, valid, bufs.shared());
    }

    private static MemorySegment bitmapCopy(NativeBuffers bufs, byte[] validity, int n) {
        MemorySegment valid = bufs.allocate(Bits.bytesFor(n));
        MemorySegment.copy(MemorySegment.ofArray(validity), 0, valid, 0, valid.byteSize());
        if ((n & 7) != 0) { // bits past the count stay clear: a batch ending at the page's end wraps this byte
            long last = valid.byteSize() - 1;
            valid.set(ValueLayout.JAVA_BYTE, last, (byte) (valid.get(ValueLayout.JAVA_BYTE, last) & ((1 << (n & 7)) - 1)));
        }
        return valid;
    }

    /** Copies heap values into native memory (no nulls). */
    public static DirectPage copyOf(Values v, String label) {
        return copyOf(v, null, label);
    }

    public int count() {
        return count;
    }

    public boolean variable() {
        return offsets != null;
    }

    public int bitsPerValue() {
        return bitsPerValue;
    }

    public int itemsPerValue() {
        return itemsPerValue;
    }

    /** Page-relative native int64 offsets (variable pages only). */
    public MemorySegment offsets() {
        return offsets;
    }

    /** The validity bitmap, or null when every value is valid. */
    public MemorySegment validity() {
        return validity;
    }

    /** Byte offset of value {@code i} within {@link #data()}. */
    public long byteStart(int i) {
        return offsets != null ? offsets.getAtIndex(LONG_LE, i) : (long) i * (bitsPerValue / 8);
    }

    public MemorySegment data() {
        return data;
    }

    /** Nulls among values {@code [from, to)}. */
    public long nullCount(int from, int to) {
        return validity == null || to <= from ? 0 : (to - from) - Kernels.get().countSetBits(validity, from, to - from);
    }

    /**
     * An Arrow buffer over bytes {@code [offset, offset + length)} of {@code segment} (which must lie in
     * this page's memory), accounted to {@code allocator}; it keeps the memory alive until it is released.
     */
    public ArrowBuf wrap(BufferAllocator allocator, MemorySegment segment, long offset, long length) {
        if (length == 0) {
            return allocator.getEmpty();
        }
        java.util.Objects.checkFromIndexSize(offset, length, segment.byteSize());
        if (!memory.tryRetain()) {
            throw new IllegalStateException("page memory already released");
        }
        try {
            return allocator.wrapForeignAllocation(new ForeignAllocation(length, segment.address() + offset) {
                @Override
                protected void release0() {
                    memory.release();
                }
            });
        } catch (RuntimeException | Error e) {
            memory.release();
            throw e;
        }
    }

    /** {@link #wrap(BufferAllocator, MemorySegment, long, long)} of the value data. */
    public ArrowBuf wrap(BufferAllocator allocator, long offset, long length) {
        return wrap(allocator, data, offset, length);
    }

    /** Heap copy of values {@code [from, to)} (for the general assembly path). */
    public Values slice(int from, int to) {
        if (bitsPerValue == 1) {
            byte[] bits = new byte[Bits.bytesFor(to - from)];
            Kernels.get().copyBits(data, from, MemorySegment.ofArray(bits), 0, to - from);
            return new Values.Fixed(bits, 1, to - from);
        }
        long b0 = byteStart(from);
        long b1 = byteStart(to);
        byte[] bytes = data.asSlice(b0, b1 - b0).toArray(ValueLayout.JAVA_BYTE);
        if (offsets == null) {
            return new Values.Fixed(bytes, bitsPerValue, to - from, null, itemsPerValue);
        }
        long[] off = new long[to - from + 1];
        for (int i = 0; i <= to - from; i++) {
            off[i] = offsets.getAtIndex(LONG_LE, from + i) - b0;
        }
        return new Values.Var(off, bytes);
    }

    /**
     * Definition levels of rows {@code [from, to)} for the general path (0 valid; else the level of the
     * outer-most null layer), or null without nulls.
     */
    public short[] defLevels(int from, int to) {
        if (rowOffsets != null) {
            throw new IllegalStateException("list pages rebuild their levels with rep");
        }
        short[] def = null;
        for (int k = outer.length - 1; k >= 0; k--) {
            MemorySegment v = layerValidity(k);
            if (v == null || nullCount(k, from, to) == 0) {
                continue;
            }
            if (def == null) {
                def = new short[to - from];
            }
            for (int i = from; i < to; i++) {
                if (def[i - from] == 0 && (v.get(ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) == 0) {
                    def[i - from] = (short) nullDef[k];
                }
            }
        }
        return def;
    }

    /** True once {@link #close()} ran (the page's own reference is gone). */
    public boolean isClosed() {
        return closed.get();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            memory.release();
        }
    }

    /**
     * The native buffers a decoder fills for one page, released together: {@link #shared()} is the memory
     * a {@link DirectPage} retains; {@link #release()} drops the decoder's own reference (freeing
     * everything if no page took one, e.g. after a decode error).
     */
    public static final class NativeBuffers {
        private final String label;
        private final java.util.List<Buffer> buffers = new java.util.ArrayList<>();
        private final SharedMemory shared;

        public NativeBuffers(String label) {
            this.label = label;
            this.shared = new SharedMemory(() -> {
                synchronized (buffers) {
                    buffers.forEach(Buffer::close);
                    buffers.clear();
                }
            });
        }

        /** A new uninitialized native buffer of {@code size} bytes, freed with the others. */
        public MemorySegment allocate(long size) {
            Buffer b = Buffer.allocateUninitialized(Math.max(size, 1), label);
            synchronized (buffers) {
                buffers.add(b);
            }
            return b.segment().asSlice(0, size);
        }

        /**
         * Moves {@code used} bytes of {@code old} (allocated here) into a new buffer of {@code size} bytes and
         * frees the old one.
         */
        public MemorySegment grow(MemorySegment old, long used, long size) {
            MemorySegment next = allocate(size);
            MemorySegment.copy(old, 0, next, 0, used);
            synchronized (buffers) {
                for (int i = 0; i < buffers.size(); i++) {
                    if (buffers.get(i).segment().address() == old.address()) {
                        buffers.remove(i).close();
                        break;
                    }
                }
            }
            return next;
        }

        public SharedMemory shared() {
            return shared;
        }

        public void release() {
            shared.release();
        }
    }
}
