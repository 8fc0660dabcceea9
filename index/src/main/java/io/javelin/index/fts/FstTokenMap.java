package io.javelin.index.fts;

import io.javelin.index.CorruptIndexException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoder of the token dictionary Lance 7 writes in {@code part_N_tokens.lance} when
 * {@code token_set_format=fst}: the bytes of a map built by the Rust {@code fst} crate (format
 * versions 1-3): header {@code u64 version, u64 type}, nodes written bottom-up, then
 * {@code u64 len, u64 root_addr} and, from version 3, a {@code u32} checksum. Node addresses point
 * at a node's last byte; the top two bits of that byte say its kind. Every key is enumerated once
 * (dictionaries are loaded whole), in byte order; every read is bounds-checked and every transition
 * must point to an earlier node, so hostile bytes end in {@link CorruptIndexException}, never a
 * loop or an out-of-bounds access.
 */
public final class FstTokenMap {

    /** The fst crate's table of frequent input bytes (index + 1 is stored in 6 bits of the state byte). */
    private static final byte[] COMMON = "te/oasripcnw.hlm-du012g=:bf3y5&_4v9678k%?xCDASFIBEjPTzRNM+LOqHGWUV,YKJZXQ;)(~[]$!'*@"
            .getBytes(StandardCharsets.ISO_8859_1);
    private static final long EMPTY_ADDRESS = 0;
    private static final int TRANS_INDEX_THRESHOLD = 32;
    private static final int MAX_KEY_BYTES = 8192;

    private final byte[] data;
    private final String resource;
    private final long version;

    private FstTokenMap(byte[] data, long version, String resource) {
        this.data = data;
        this.version = version;
        this.resource = resource;
    }

    /** A dictionary entry: token text and its id (the map's output). */
    public record Entry(String token, long id) {
    }

    /** Every (token, id) of the map, tokens in byte order. */
    public static List<Entry> decode(byte[] bytes, String resource) {
        CorruptIndexException.check(bytes.length >= 32, resource, "fst of %d bytes is shorter than its header and footer", bytes.length);
        long version = u64(bytes, 0);
        CorruptIndexException.check(version >= 1 && version <= 3, resource, "fst version %d is not 1-3", version);
        int end = version <= 2 ? bytes.length : bytes.length - 4;
        CorruptIndexException.check(end >= 32, resource, "fst of %d bytes lacks its footer", bytes.length);
        long root = u64(bytes, end - 8);
        long len = u64(bytes, end - 16);
        int addrOffset = version <= 2 ? 17 : 21;
        boolean emptyRoot = root == EMPTY_ADDRESS;
        CorruptIndexException.check(emptyRoot || root + addrOffset == bytes.length, resource,
                "fst root address %d does not end the node data (%d bytes)", root, bytes.length);
        CorruptIndexException.check(len >= 0 && len <= bytes.length, resource, "fst claims %d keys in %d bytes", len, bytes.length);
        FstTokenMap m = new FstTokenMap(bytes, version, resource);
        List<Entry> out = new ArrayList<>((int) len);
        m.walk(root, new byte[64], 0, 0, out, (int) len);
        CorruptIndexException.check(out.size() == len, resource, "fst holds %d keys, its footer says %d", out.size(), len);
        return out;
    }

    private static long u64(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }

    private int at(long i) {
        // node data lies after the 16-byte header
        CorruptIndexException.check(i >= 16 && i < data.length, resource, "fst read at %d outside the node data", i);
        return data[(int) i] & 0xFF;
    }

    private long unpack(long at, int n) {
        long v = 0;
        for (int i = n - 1; i >= 0; i--) {
            v = (v << 8) | at(at + i);
        }
        return v;
    }

    private long target(long at, int tsize, long end, long node) {
        long delta = unpack(at, tsize);
        if (delta == EMPTY_ADDRESS) {
            return EMPTY_ADDRESS;
        }
        long t = end - delta;
        CorruptIndexException.check(t >= 16 && t < node, resource, "fst transition from %d to %d does not go back", node, t);
        return t;
    }

    private static int commonInput(int idx) {
        return idx == 0 || idx > COMMON.length ? -1 : COMMON[idx - 1] & 0xFF;
    }

    private byte[] push(byte[] key, int depth, int b) {
        CorruptIndexException.check(depth < MAX_KEY_BYTES, resource, "fst key longer than %d bytes", MAX_KEY_BYTES);
        if (depth == key.length) {
            key = java.util.Arrays.copyOf(key, key.length * 2);
        }
        key[depth] = (byte) b;
        return key;
    }

    private void emit(byte[] key, int depth, long out, List<Entry> entries, int limit) {
        CorruptIndexException.check(entries.size() < limit, resource, "fst holds more keys than its footer's %d", limit);
        entries.add(new Entry(new String(key, 0, depth, StandardCharsets.UTF_8), out));
    }

    private void walk(long addr, byte[] key, int depth, long out, List<Entry> entries, int limit) {
        if (addr == EMPTY_ADDRESS) {
            emit(key, depth, out, entries, limit);
            return;
        }
        int state = at(addr);
        switch (state >>> 6) {
            case 3 -> { // one transition to the node written just before, no output
                int common = commonInput(state & 0x3F);
                int inputLen = common < 0 ? 1 : 0;
                int input = common < 0 ? at(addr - 1) : common;
                long end = addr - inputLen;
                long next = end - 1;
                CorruptIndexException.check(next >= 16, resource, "fst node at %d has no successor", addr);
                key = push(key, depth, input);
                walk(next, key, depth + 1, out, entries, limit);
            }
            case 2 -> { // one transition with an output
                int common = commonInput(state & 0x3F);
                int inputLen = common < 0 ? 1 : 0;
                int input = common < 0 ? at(addr - 1) : common;
                int sizes = at(addr - inputLen - 1);
                int tsize = sizes >>> 4, osize = sizes & 0x0F;
                CorruptIndexException.check(tsize <= 8 && osize <= 8, resource, "fst pack sizes %d/%d", tsize, osize);
                long end = addr - inputLen - 1 - tsize - osize;
                long o = osize == 0 ? 0 : unpack(addr - inputLen - 1 - tsize - osize, osize);
                long next = tsize == 0 ? EMPTY_ADDRESS : target(addr - inputLen - 1 - tsize, tsize, end, addr);
                key = push(key, depth, input);
                walk(next, key, depth + 1, out + o, entries, limit);
            }
            default -> anyTrans(addr, state, key, depth, out, entries, limit);
        }
    }

    private void anyTrans(long addr, int state, byte[] key, int depth, long out, List<Entry> entries, int limit) {
        boolean isFinal = (state & 0x40) != 0;
        int packed = state & 0x3F;
        int ntransLen = packed == 0 ? 1 : 0;
        int ntrans = packed != 0 ? packed : at(addr - 1) == 1 ? 256 : at(addr - 1);
        int sizes = at(addr - ntransLen - 1);
        int tsize = sizes >>> 4, osize = sizes & 0x0F;
        CorruptIndexException.check(tsize <= 8 && osize <= 8, resource, "fst pack sizes %d/%d", tsize, osize);
        int indexSize = version >= 2 && ntrans > TRANS_INDEX_THRESHOLD ? 256 : 0;
        long totalTrans = ntrans + (long) ntrans * tsize + indexSize;
        long base = addr - ntransLen - 1;
        long end = base - totalTrans - (long) ntrans * osize - (isFinal ? osize : 0);
        CorruptIndexException.check(end >= 16, resource, "fst node at %d starts before the node data", addr);
        if (isFinal) {
            long fo = osize == 0 ? 0 : unpack(base - totalTrans - (long) ntrans * osize - osize, osize);
            emit(key, depth, out + fo, entries, limit);
        }
        for (int i = 0; i < ntrans; i++) {
            int input = at(base - indexSize - i - 1);
            long next = tsize == 0 ? EMPTY_ADDRESS : target(base - indexSize - ntrans - (long) i * tsize - tsize, tsize, end, addr);
            long o = osize == 0 ? 0 : unpack(base - totalTrans - (long) i * osize - osize, osize);
            key = push(key, depth, input);
            walk(next, key, depth + 1, out + o, entries, limit);
        }
    }
}
