package io.javelin.encoding.arrow;

import java.util.List;

/**
 * Decoded buffers of one Arrow node before they become a vector: {@code length} slots, a validity
 * bitmap (null = all valid), list offsets ({@code length + 1}, lists only), leaf values (leaves only)
 * and children (struct, list, fixed-size list).
 */
public record Node(int length, byte[] validity, long[] offsets, Values values, List<Node> children) {

    public static Node leaf(int length, byte[] validity, Values values) {
        return new Node(length, validity, null, values, List.of());
    }

    public int nullCount() {
        if (validity == null) {
            return 0;
        }
        int valid = 0;
        for (int i = 0; i < length; i++) {
            if (Bits.get(validity, i)) {
                valid++;
            }
        }
        return length - valid;
    }
}
