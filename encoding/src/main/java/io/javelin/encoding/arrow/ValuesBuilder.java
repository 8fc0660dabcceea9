package io.javelin.encoding.arrow;

import java.util.Arrays;

/**
 * Concatenates slices of {@link Values} of one kind. Callers that know the final size call
 * {@link #reserve} first so that {@link #build()} hands out the arrays without another copy; a
 * builder that receives exactly one whole {@link Values} returns it unchanged.
 */
public final class ValuesBuilder {

    private final boolean variable;
    private final int bitsPerValue;
    private final int itemsPerValue;
    private byte[] data = EMPTY;
    private int size; // bytes used in data (variable and byte-wide fixed values)
    private byte[] bitmap = EMPTY;
    private byte[] itemValidity;
    private long[] offsets;
    private int count;
    /** A whole {@code Values} adopted without copying while it is the only thing appended. */
    private Values adopted;

    private static final byte[] EMPTY = new byte[0];

    public ValuesBuilder(boolean variable, int bitsPerValue, int itemsPerValue) {
        this.variable = variable;
        this.bitsPerValue = bitsPerValue;
        this.itemsPerValue = Math.max(1, itemsPerValue);
        if (variable) {
            offsets = new long[16];
        }
    }

    public int count() {
        return count;
    }

    /** Pre-sizes for {@code values} more values holding {@code bytes} more data bytes (variable values). */
    public ValuesBuilder reserve(long values, long bytes) {
        materialize();
        if (variable) {
            ensureOffsets(Math.toIntExact(count + values + 1));
            ensureData(Math.toIntExact(size + bytes));
        } else if (bitsPerValue == 1) {
            ensureBits(count + values);
        } else {
            ensureData(Math.toIntExact(size + values * (bitsPerValue / 8)));
        }
        return this;
    }

    /** Appends values {@code [from, to)} of {@code v}. */
    public void append(Values v, int from, int to) {
        int n = to - from;
        if (n <= 0) {
            return;
        }
        if (count == 0 && adopted == null && from == 0 && to == v.count() && data.length == 0 && bitmap.length == 0
                && exact(v)) {
            adopted = v;
            count = n;
            return;
        }
        materialize();
        appendCopy(v, from, to);
    }

    private void appendCopy(Values v, int from, int to) {
        int n = to - from;
        if (n <= 0) {
            return;
        }
        if (variable) {
            Values.Var var = (Values.Var) v;
            long[] src = var.offsets();
            ensureOffsets(count + n + 1);
            long start = src[from];
            int len = (int) (src[to] - start);
            ensureData(size + len);
            long delta = size - start;
            for (int i = 1; i <= n; i++) {
                offsets[count + i] = src[from + i] + delta;
            }
            System.arraycopy(var.data(), (int) start, data, size, len);
            size += len;
        } else {
            Values.Fixed f = (Values.Fixed) v;
            if (bitsPerValue == 1) {
                ensureBits(count + n);
                Bits.copy(f.data(), from, bitmap, count, n);
            } else {
                int w = bitsPerValue / 8;
                ensureData(size + n * w);
                System.arraycopy(f.data(), from * w, data, size, n * w);
                size += n * w;
            }
            if (f.itemValidity() != null || itemValidity != null) {
                long items = (long) (count + n) * itemsPerValue;
                if (itemValidity == null) {
                    itemValidity = new byte[Bits.bytesFor(items)];
                    fillOnes(itemValidity, 0, (long) count * itemsPerValue);
                } else if (itemValidity.length < Bits.bytesFor(items)) {
                    itemValidity = Arrays.copyOf(itemValidity, Math.max(Bits.bytesFor(items), itemValidity.length * 2));
                }
                if (f.itemValidity() != null) {
                    Bits.copy(f.itemValidity(), (long) from * itemsPerValue, itemValidity, (long) count * itemsPerValue,
                            (long) n * itemsPerValue);
                } else {
                    fillOnes(itemValidity, (long) count * itemsPerValue, (long) n * itemsPerValue);
                }
            }
        }
        count += n;
    }

    /** Appends {@code n} zero (or empty) values. */
    public void appendZeros(int n) {
        if (n <= 0) {
            return;
        }
        materialize();
        if (variable) {
            ensureOffsets(count + n + 1);
            Arrays.fill(offsets, count + 1, count + n + 1, size);
        } else if (bitsPerValue == 1) {
            ensureBits(count + n);
        } else {
            int len = n * (bitsPerValue / 8);
            ensureData(size + len);
            Arrays.fill(data, size, size + len, (byte) 0); // a reserved array may hold stale bytes
            size += len;
        }
        if (itemValidity != null) {
            long items = (long) (count + n) * itemsPerValue;
            if (itemValidity.length < Bits.bytesFor(items)) {
                itemValidity = Arrays.copyOf(itemValidity, Bits.bytesFor(items));
            }
        }
        count += n;
    }

    /** Appends {@code n} copies of one fixed value (bytes) or variable value. */
    public void appendRepeated(byte[] value, int n) {
        if (n <= 0) {
            return;
        }
        materialize();
        if (variable) {
            ensureOffsets(count + n + 1);
            ensureData(Math.toIntExact(size + (long) value.length * n));
            for (int i = 0; i < n; i++) {
                System.arraycopy(value, 0, data, size, value.length);
                size += value.length;
                offsets[count + i + 1] = size;
            }
        } else if (bitsPerValue == 1) {
            ensureBits(count + n);
            if (value.length > 0 && (value[0] & 1) != 0) {
                fillOnes(bitmap, count, n);
            }
        } else {
            int w = bitsPerValue / 8;
            ensureData(Math.toIntExact(size + (long) w * n));
            for (int i = 0; i < n; i++) {
                System.arraycopy(value, 0, data, size, w);
                size += w;
            }
        }
        count += n;
    }

    /** True if {@code v}'s arrays are exactly what {@link #build()} would produce for it. */
    private boolean exact(Values v) {
        if (variable) {
            return v instanceof Values.Var var && var.offsets()[0] == 0 && var.data().length == var.offsets()[var.count()];
        }
        if (!(v instanceof Values.Fixed f) || f.bitsPerValue() != bitsPerValue) {
            return false;
        }
        if (bitsPerValue == 1) {
            return false; // bits past the count must be cleared: copy
        }
        return f.data().length == f.count() * (bitsPerValue / 8) && f.itemsPerValue() == itemsPerValue
                && (f.itemValidity() == null || f.itemValidity().length == Bits.bytesFor((long) f.count() * itemsPerValue));
    }

    /** Turns an adopted value back into builder state before anything else is appended. */
    private void materialize() {
        if (adopted == null) {
            return;
        }
        Values v = adopted;
        adopted = null;
        count = 0;
        appendCopy(v, 0, v.count());
    }

    private static void fillOnes(byte[] bits, long from, long n) {
        long i = 0;
        while (i < n && ((from + i) & 7) != 0) {
            Bits.set(bits, from + i);
            i++;
        }
        int fullBytes = (int) ((n - i) >>> 3);
        if (fullBytes > 0) {
            int b0 = (int) ((from + i) >>> 3);
            Arrays.fill(bits, b0, b0 + fullBytes, (byte) -1);
            i += (long) fullBytes << 3;
        }
        for (; i < n; i++) {
            Bits.set(bits, from + i);
        }
    }

    private void ensureOffsets(int n) {
        if (offsets.length < n) {
            offsets = Arrays.copyOf(offsets, Math.max(n, offsets.length * 2));
        }
    }

    private void ensureData(int n) {
        if (data.length < n) {
            data = Arrays.copyOf(data, Math.max(n, data.length * 2));
        }
    }

    private void ensureBits(long n) {
        int need = Bits.bytesFor(n);
        if (bitmap.length < need) {
            bitmap = Arrays.copyOf(bitmap, Math.max(need, bitmap.length * 2));
        }
    }

    private static byte[] exactly(byte[] a, int n) {
        return a.length == n ? a : Arrays.copyOf(a, n);
    }

    public Values build() {
        if (adopted != null) {
            return adopted;
        }
        if (variable) {
            return new Values.Var(offsets.length == count + 1 ? offsets : Arrays.copyOf(offsets, count + 1), exactly(data, size));
        }
        if (bitsPerValue == 1) {
            return new Values.Fixed(exactly(bitmap, Bits.bytesFor(count)), 1, count);
        }
        byte[] iv = itemValidity == null ? null : exactly(itemValidity, Bits.bytesFor((long) count * itemsPerValue));
        return new Values.Fixed(exactly(data, size), bitsPerValue, count, iv, itemsPerValue);
    }
}
