package io.javelin.encoding.arrow;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;

/** Concatenates slices of {@link Values} of one kind. */
public final class ValuesBuilder {

    private final boolean variable;
    private final int bitsPerValue;
    private final int itemsPerValue;
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private byte[] bitmap = new byte[64];
    private byte[] itemValidity;
    private long[] offsets = new long[64];
    private int count;

    public ValuesBuilder(boolean variable, int bitsPerValue, int itemsPerValue) {
        this.variable = variable;
        this.bitsPerValue = bitsPerValue;
        this.itemsPerValue = Math.max(1, itemsPerValue);
    }

    public int count() {
        return count;
    }

    /** Appends values {@code [from, to)} of {@code v}. */
    public void append(Values v, int from, int to) {
        int n = to - from;
        if (n <= 0) {
            return;
        }
        if (variable) {
            Values.Var var = (Values.Var) v;
            ensureOffsets(count + n + 1);
            long base = bytes.size();
            long start = var.offsets()[from];
            for (int i = 0; i < n; i++) {
                offsets[count + i + 1] = base + var.offsets()[from + i + 1] - start;
            }
            bytes.write(var.data(), (int) start, (int) (var.offsets()[to] - start));
        } else {
            Values.Fixed f = (Values.Fixed) v;
            if (bitsPerValue == 1) {
                ensureBits(count + n);
                Bits.copy(f.data(), from, bitmap, count, n);
            } else {
                int w = bitsPerValue / 8;
                bytes.write(f.data(), from * w, n * w);
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
        if (variable) {
            ensureOffsets(count + n + 1);
            for (int i = 0; i < n; i++) {
                offsets[count + i + 1] = bytes.size();
            }
        } else if (bitsPerValue == 1) {
            ensureBits(count + n);
        } else {
            bytes.write(new byte[n * (bitsPerValue / 8)], 0, n * (bitsPerValue / 8));
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
        for (int i = 0; i < n; i++) {
            if (variable) {
                ensureOffsets(count + 2);
                bytes.write(value, 0, value.length);
                offsets[count + 1] = bytes.size();
            } else if (bitsPerValue == 1) {
                ensureBits(count + 1);
                if (value.length > 0 && (value[0] & 1) != 0) {
                    Bits.set(bitmap, count);
                }
            } else {
                bytes.write(value, 0, bitsPerValue / 8);
            }
            count++;
        }
    }

    private static void fillOnes(byte[] bits, long from, long n) {
        for (long i = 0; i < n; i++) {
            Bits.set(bits, from + i);
        }
    }

    private void ensureOffsets(int n) {
        if (offsets.length < n) {
            offsets = Arrays.copyOf(offsets, Math.max(n, offsets.length * 2));
        }
    }

    private void ensureBits(long n) {
        int need = Bits.bytesFor(n);
        if (bitmap.length < need) {
            bitmap = Arrays.copyOf(bitmap, Math.max(need, bitmap.length * 2));
        }
    }

    public Values build() {
        if (variable) {
            return new Values.Var(Arrays.copyOf(offsets, count + 1), bytes.toByteArray());
        }
        if (bitsPerValue == 1) {
            return new Values.Fixed(Arrays.copyOf(bitmap, Bits.bytesFor(count)), 1, count);
        }
        byte[] iv = itemValidity == null ? null : Arrays.copyOf(itemValidity, Bits.bytesFor((long) count * itemsPerValue));
        return new Values.Fixed(bytes.toByteArray(), bitsPerValue, count, iv, itemsPerValue);
    }
}
