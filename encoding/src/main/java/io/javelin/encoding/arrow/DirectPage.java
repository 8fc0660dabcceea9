package io.javelin.encoding.arrow;

import io.javelin.encoding.io.SharedMemory;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;

/**
 * A decoded page of a leaf without nulls whose values sit in native memory in Arrow layout: fixed-width
 * values back to back, or variable-width bytes with page-relative offsets. Batches wrap slices of it as
 * Arrow buffers without copying ({@link #wrap}); each wrapped buffer holds a reference on the memory, so
 * the page can be dropped from a scan's cache while batches still use it. {@link #close()} drops the
 * page's own reference (idempotent).
 */
public final class DirectPage implements AutoCloseable {

    private final int count;
    private final int bitsPerValue;
    private final int itemsPerValue;
    private final long[] offsets;
    private final MemorySegment data;
    private final SharedMemory memory;
    private final AtomicBoolean closed = new AtomicBoolean();

    private DirectPage(int count, int bitsPerValue, int itemsPerValue, long[] offsets, MemorySegment data, SharedMemory memory) {
        if (!data.isNative()) {
            throw new IllegalArgumentException("direct pages need native memory");
        }
        this.count = count;
        this.bitsPerValue = bitsPerValue;
        this.itemsPerValue = Math.max(1, itemsPerValue);
        this.offsets = offsets;
        this.data = data;
        this.memory = memory;
    }

    /**
     * {@code count} fixed-width values of {@code bitsPerValue} (a multiple of 8) bits ({@code itemsPerValue}
     * items each for fixed-size lists); takes a reference on {@code memory}.
     */
    public static DirectPage fixed(int count, int bitsPerValue, int itemsPerValue, MemorySegment data, SharedMemory memory) {
        if (bitsPerValue <= 0 || bitsPerValue % 8 != 0 || data.byteSize() < (long) count * (bitsPerValue / 8)) {
            throw new IllegalArgumentException("bad fixed page: " + count + " x " + bitsPerValue + " bits in " + data.byteSize() + " B");
        }
        return new DirectPage(count, bitsPerValue, itemsPerValue, null, data, memory.retain());
    }

    /** Variable-width values: {@code offsets} ({@code count + 1}, from 0) into {@code data}; takes a reference. */
    public static DirectPage variable(long[] offsets, MemorySegment data, SharedMemory memory) {
        return new DirectPage(offsets.length - 1, 0, 1, offsets, data, memory.retain());
    }

    /** Copies heap values (no item validity) into fresh native memory owned by the page. */
    public static DirectPage copyOf(Values v, String label) {
        byte[] bytes = v instanceof Values.Var var ? var.data() : ((Values.Fixed) v).data();
        long size = v instanceof Values.Var var ? var.offsets()[var.count()] : (long) v.count() * (((Values.Fixed) v).bitsPerValue() / 8);
        io.javelin.objectstore.memory.Buffer b = io.javelin.objectstore.memory.Buffer.allocateUninitialized(Math.max(size, 1), label);
        SharedMemory mem = new SharedMemory(b);
        try {
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, b.segment(), 0, size);
            MemorySegment seg = b.segment().asSlice(0, size);
            return v instanceof Values.Var var ? variable(var.offsets(), seg, mem)
                    : fixed(v.count(), ((Values.Fixed) v).bitsPerValue(), ((Values.Fixed) v).itemsPerValue(), seg, mem);
        } finally {
            mem.release(); // the page holds its own reference now (or none, if it failed)
        }
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

    /** Page-relative offsets (variable pages only). */
    public long[] offsets() {
        return offsets;
    }

    /** Byte range of values {@code [from, to)} within {@link #data()}. */
    public long byteStart(int from) {
        return offsets != null ? offsets[from] : (long) from * (bitsPerValue / 8);
    }

    public MemorySegment data() {
        return data;
    }

    /**
     * An Arrow buffer over bytes {@code [offset, offset + length)} of the data, accounted to {@code allocator};
     * it keeps the memory alive until it is released.
     */
    public ArrowBuf wrap(BufferAllocator allocator, long offset, long length) {
        if (length == 0) {
            return allocator.getEmpty();
        }
        java.util.Objects.checkFromIndexSize(offset, length, data.byteSize());
        if (!memory.tryRetain()) {
            throw new IllegalStateException("page memory already released");
        }
        try {
            return allocator.wrapForeignAllocation(new ForeignAllocation(length, data.address() + offset) {
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

    /** Heap copy of values {@code [from, to)} (for the general assembly path). */
    public Values slice(int from, int to) {
        long b0 = byteStart(from);
        long b1 = byteStart(to);
        byte[] bytes = data.asSlice(b0, b1 - b0).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        if (offsets == null) {
            return new Values.Fixed(bytes, bitsPerValue, to - from, null, itemsPerValue);
        }
        long[] off = new long[to - from + 1];
        for (int i = 0; i <= to - from; i++) {
            off[i] = offsets[from + i] - b0;
        }
        return new Values.Var(off, bytes);
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            memory.release();
        }
    }
}
