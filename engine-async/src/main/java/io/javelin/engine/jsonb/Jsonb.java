package io.javelin.engine.jsonb;

/**
 * Reads Lance's JSONB (the {@code jsonb} crate's binary JSON, as {@code lance.json} columns store it) in place,
 * without building a tree. A value is addressed by a {@code long} reference packing its entry type, payload
 * length and payload offset; {@link #ABSENT} means "not there".
 *
 * <p>Layout (all integers big-endian): a container starts with a u32 header whose top three bits say array
 * (0x80000000), object (0x40000000) or scalar (0x20000000) and whose low 29 bits count the members; then one
 * u32 entry per value (an object has all key entries, then all value entries), each with a type in bits
 * 28-30 and the payload length in the low 28 bits; then the payloads in the same order. A nested container's
 * payload is itself a container. Object keys are stored sorted, without duplicates.
 */
public final class Jsonb {

    public static final long ABSENT = -1L;

    public static final int NULL = 0;
    public static final int STRING = 1;
    public static final int NUMBER = 2;
    public static final int FALSE = 3;
    public static final int TRUE = 4;
    public static final int CONTAINER = 5;
    public static final int EXTENSION = 6;

    static final int ARRAY_TAG = 0x80000000;
    static final int OBJECT_TAG = 0x40000000;
    static final int SCALAR_TAG = 0x20000000;
    private static final int TYPE_MASK = 0xE0000000;
    private static final int COUNT_MASK = 0x1FFFFFFF;
    private static final int ENTRY_OFFSET_FLAG = 0x80000000;
    private static final int LENGTH_MASK = 0x0FFFFFFF;

    private Jsonb() {
    }

    static long ref(int type, int offset, int length) {
        return (long) type << 60 | (long) length << 32 | (offset & 0xFFFFFFFFL);
    }

    public static int type(long ref) {
        return (int) (ref >>> 60);
    }

    public static int offset(long ref) {
        return (int) ref;
    }

    public static int length(long ref) {
        return (int) (ref >>> 32) & LENGTH_MASK;
    }

    static int u32(byte[] b, int at, int end) {
        if (at < 0 || at + 4 > end) {
            throw corrupt("truncated at byte " + at);
        }
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    static JsonbException corrupt(String what) {
        return new JsonbException("corrupt JSONB value: " + what);
    }

    /** The value a whole JSONB document in {@code b[start, end)} holds. */
    public static long root(byte[] b, int start, int end) {
        int header = u32(b, start, end);
        if ((header & TYPE_MASK) == SCALAR_TAG) {
            return entry(u32(b, start + 4, end), start + 8, end);
        }
        if ((header & TYPE_MASK) != ARRAY_TAG && (header & TYPE_MASK) != OBJECT_TAG) {
            throw corrupt("unknown container header 0x" + Integer.toHexString(header));
        }
        return ref(CONTAINER, start, end - start);
    }

    private static long entry(int entry, int payload, int end) {
        if ((entry & ENTRY_OFFSET_FLAG) != 0) {
            throw corrupt("offset-mode entries are not written by Lance");
        }
        int type = entry >>> 28 & 7;
        int length = entry & LENGTH_MASK;
        if (type > EXTENSION || payload + length > end || payload + length < payload) {
            throw corrupt("entry of type " + type + " and length " + length + " at " + payload);
        }
        return ref(type, payload, length);
    }

    private static int header(byte[] b, long ref) {
        return u32(b, offset(ref), offset(ref) + length(ref));
    }

    public static boolean isArray(byte[] b, long ref) {
        return ref != ABSENT && type(ref) == CONTAINER && (header(b, ref) & TYPE_MASK) == ARRAY_TAG;
    }

    public static boolean isObject(byte[] b, long ref) {
        return ref != ABSENT && type(ref) == CONTAINER && (header(b, ref) & TYPE_MASK) == OBJECT_TAG;
    }

    /** Members of an array or object (their entries must fit in the container). */
    public static int count(byte[] b, long ref) {
        int header = header(b, ref);
        int n = header & COUNT_MASK;
        long entries = (header & TYPE_MASK) == OBJECT_TAG ? 2L * n : n;
        if (4 + 4 * entries > length(ref)) {
            throw corrupt("container of " + n + " members in " + length(ref) + " bytes");
        }
        return n;
    }

    private static int advance(int payload, int entry, int end) {
        int next = payload + (entry & LENGTH_MASK);
        if (next < payload || next > end) {
            throw corrupt("payloads past the container's end");
        }
        return next;
    }

    /** Element {@code index} of an array; absent for other values or out of range. */
    public static long element(byte[] b, long ref, long index) {
        if (!isArray(b, ref)) {
            return ABSENT;
        }
        int n = count(b, ref);
        if (index < 0 || index >= n) {
            return ABSENT;
        }
        int at = offset(ref);
        int end = at + length(ref);
        int payload = at + 4 + 4 * n;
        for (int k = 0; k < index; k++) {
            payload = advance(payload, u32(b, at + 4 + 4 * k, end), end);
        }
        return entry(u32(b, at + 4 + 4 * (int) index, end), payload, end);
    }

    /** The member named {@code key} (UTF-8, exact case) of an object; absent for other values. */
    public static long member(byte[] b, long ref, byte[] key) {
        if (!isObject(b, ref)) {
            return ABSENT;
        }
        int n = count(b, ref);
        int at = offset(ref);
        int end = at + length(ref);
        int data = at + 4 + 8 * n;
        int keyAt = data;
        int found = -1;
        for (int k = 0; k < n; k++) {
            int len = u32(b, at + 4 + 4 * k, end) & LENGTH_MASK;
            if (keyAt + len > end || keyAt + len < keyAt) {
                throw corrupt("keys past the container's end");
            }
            if (found < 0 && len == key.length && keyAt + len <= end && java.util.Arrays.equals(b, keyAt, keyAt + len, key, 0, len)) {
                found = k;
            }
            keyAt += len;
        }
        if (found < 0) {
            return ABSENT;
        }
        int payload = keyAt;
        for (int k = 0; k < found; k++) {
            payload = advance(payload, u32(b, at + 4 + 4 * (n + k), end), end);
        }
        return entry(u32(b, at + 4 + 4 * (n + found), end), payload, end);
    }

    /** The value as a standalone JSONB document (what Lance's {@code json_get} returns). */
    public static byte[] document(byte[] b, long ref) {
        if (type(ref) == CONTAINER) {
            return java.util.Arrays.copyOfRange(b, offset(ref), offset(ref) + length(ref));
        }
        byte[] out = new byte[8 + length(ref)];
        putU32(out, 0, SCALAR_TAG);
        putU32(out, 4, type(ref) << 28 | length(ref));
        System.arraycopy(b, offset(ref), out, 8, length(ref));
        return out;
    }

    static void putU32(byte[] out, int at, int v) {
        out[at] = (byte) (v >>> 24);
        out[at + 1] = (byte) (v >>> 16);
        out[at + 2] = (byte) (v >>> 8);
        out[at + 3] = (byte) v;
    }
}
