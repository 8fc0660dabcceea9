package io.javelin.encoding.writer.v21;

import java.util.Arrays;

/**
 * Dense ids for byte strings that live in one array ({@code data[start, start + len)}), assigned in
 * first-seen order: an open-addressing hash table of (start, len, hash) without a key object per
 * value. Used by dictionary detection, which probes every value of a page.
 */
final class ByteKeyIds {

    private final byte[] data;
    private int[] slots; // id + 1, 0 = empty
    private int[] starts = new int[64];
    private int[] lens = new int[64];
    private int[] hashes = new int[64];
    private int size;

    ByteKeyIds(byte[] data, int expected) {
        this.data = data;
        slots = new int[Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1];
    }

    int size() {
        return size;
    }

    /** The id of {@code data[start, start + len)}: an existing one, or {@code size()} for a new key (then added). */
    int idOf(int start, int len) {
        int h = hash(start, len);
        int mask = slots.length - 1;
        for (int i = h & mask; ; i = (i + 1) & mask) {
            int s = slots[i];
            if (s == 0) {
                int id = size++;
                if (id >= starts.length) {
                    int cap = starts.length * 2;
                    starts = Arrays.copyOf(starts, cap);
                    lens = Arrays.copyOf(lens, cap);
                    hashes = Arrays.copyOf(hashes, cap);
                }
                starts[id] = start;
                lens[id] = len;
                hashes[id] = h;
                slots[i] = id + 1;
                if (size * 2 > slots.length) {
                    rehash();
                }
                return id;
            }
            int id = s - 1;
            if (hashes[id] == h && lens[id] == len
                    && Arrays.equals(data, starts[id], starts[id] + len, data, start, start + len)) {
                return id;
            }
        }
    }

    private void rehash() {
        int[] next = new int[slots.length * 2];
        int mask = next.length - 1;
        for (int id = 0; id < size; id++) {
            int i = hashes[id] & mask;
            while (next[i] != 0) {
                i = (i + 1) & mask;
            }
            next[i] = id + 1;
        }
        slots = next;
    }

    private int hash(int start, int len) {
        int h = 0x9E3779B9 ^ len;
        for (int i = start; i < start + len; i++) {
            h = (h ^ data[i]) * 0x01000193;
        }
        return h ^ (h >>> 16);
    }
}
