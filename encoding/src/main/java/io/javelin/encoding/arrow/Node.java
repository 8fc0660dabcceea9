package io.javelin.encoding.arrow;

import java.util.List;

/**
 * Decoded buffers of one Arrow node before they become a vector: {@code length} slots, a validity
 * bitmap (null = all valid), list offsets ({@code length + 1}, lists only), leaf values (leaves only)
 * and children (struct, list, fixed-size list).
 */
public record Node(int length, byte[] validity, long[] offsets, Values values, List<Node> children) {

    private static final java.lang.invoke.VarHandle LONGS =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    public static Node leaf(int length, byte[] validity, Values values) {
        return new Node(length, validity, null, values, List.of());
    }

    public int nullCount() {
        if (validity == null) {
            return 0;
        }
        int full = length >>> 3;
        long valid = 0;
        int i = 0;
        for (; i + 8 <= full; i += 8) {
            valid += Long.bitCount((long) LONGS.get(validity, i));
        }
        for (; i < full; i++) {
            valid += Integer.bitCount(validity[i] & 0xFF);
        }
        for (int b = full << 3; b < length; b++) {
            if (Bits.get(validity, b)) {
                valid++;
            }
        }
        return (int) (length - valid);
    }
}
