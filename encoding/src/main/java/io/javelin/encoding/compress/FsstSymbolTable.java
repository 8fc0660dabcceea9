package io.javelin.encoding.compress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A Lance FSST symbol table (file-format.md §9.4): up to 255 symbols of 1..8 bytes, code 255 escapes
 * a literal byte. Parsed from (and written to) Lance's fixed 2312-byte layout:
 * <pre>
 *   u64 LE header: bits 63..32 = 0x46535354 ("FSST"), bit 24 = encoder_switch,
 *                  bits 23..16 suffix_lim, 15..8 terminator, 7..0 n_symbols
 *   n_symbols x u64 LE symbols (first byte of the symbol in the low byte)
 *   n_symbols x u8 symbol lengths (1..8), at 8 + 8 * n_symbols
 *   zero fill up to 2312 bytes
 * </pre>
 * When encoder_switch is 0 (Lance: input under 32 KiB) the payload is stored uncompressed and decoding
 * is a copy. Decoding never reads outside the given input range or writes past the given output
 * limit, whatever the bytes; every problem is a {@link CodecException}. Instances are immutable.
 */
public final class FsstSymbolTable {

    public static final int SERIALIZED_BYTES = 8 + 256 * 8 + 256;
    public static final long MAGIC = 0x46535354L;
    public static final int ESCAPE = 255;
    public static final int MAX_SYMBOLS = 255;
    public static final int MAX_SYMBOL_LENGTH = 8;

    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final String CODEC = "fsst";

    private final boolean compressed;
    private final int count;
    private final long[] symbols = new long[256];
    /** 0 for codes without a symbol (including 255). */
    private final byte[] lengths = new byte[256];
    /** Encoder index: codes whose symbol starts with byte b, longest first. Built lazily. */
    private volatile int[][] byFirstByte;

    private FsstSymbolTable(boolean compressed, int count) {
        this.compressed = compressed;
        this.count = count;
    }

    /** The table Lance writes for small inputs: encoder_switch = 0, values copied through. */
    public static FsstSymbolTable uncompressed() {
        return new FsstSymbolTable(false, 0);
    }

    /**
     * A compressing table with the given symbols (code i = {@code symbols[i]}, 1..8 bytes each, at most
     * 255 of them).
     */
    public static FsstSymbolTable of(byte[]... symbols) {
        if (symbols.length > MAX_SYMBOLS) {
            throw new IllegalArgumentException("At most 255 FSST symbols: " + symbols.length);
        }
        FsstSymbolTable t = new FsstSymbolTable(true, symbols.length);
        for (int i = 0; i < symbols.length; i++) {
            byte[] s = symbols[i];
            if (s.length < 1 || s.length > MAX_SYMBOL_LENGTH) {
                throw new IllegalArgumentException("FSST symbol " + i + " has length " + s.length + ", expected 1..8");
            }
            long v = 0;
            for (int j = 0; j < s.length; j++) {
                v |= (s[j] & 0xFFL) << (8 * j);
            }
            t.symbols[i] = v;
            t.lengths[i] = (byte) s.length;
        }
        return t;
    }

    static FsstSymbolTable ofPacked(long[] values, int[] lens, int n) {
        FsstSymbolTable t = new FsstSymbolTable(true, n);
        for (int i = 0; i < n; i++) {
            t.symbols[i] = lens[i] == 8 ? values[i] : values[i] & ((1L << (8 * lens[i])) - 1);
            t.lengths[i] = (byte) lens[i];
        }
        return t;
    }

    /**
     * Parses and validates the 2312-byte table at {@code offset}.
     *
     * @throws CodecException when the segment is too short, the magic is wrong, or a length is not 1..8
     */
    public static FsstSymbolTable parse(MemorySegment table, long offset) {
        if (offset < 0 || table.byteSize() - offset < SERIALIZED_BYTES) {
            throw new CodecException(CODEC, 0, "Symbol table needs " + SERIALIZED_BYTES + " bytes, got "
                    + Math.max(0, table.byteSize() - offset));
        }
        long header = table.get(U64, offset);
        if (header >>> 32 != MAGIC) {
            throw new CodecException(CODEC, 4, String.format("Bad symbol table magic 0x%08X, expected 0x%08X", header >>> 32, MAGIC));
        }
        boolean compressed = (header & (1L << 24)) != 0;
        int n = (int) (header & 0xFF);
        if (n > MAX_SYMBOLS) {
            throw new CodecException(CODEC, 0, "Symbol table declares " + n + " symbols, at most 255 allowed");
        }
        FsstSymbolTable t = new FsstSymbolTable(compressed, n);
        for (int i = 0; i < n; i++) {
            int len = table.get(ValueLayout.JAVA_BYTE, offset + 8 + 8L * n + i);
            if (len < 1 || len > MAX_SYMBOL_LENGTH) {
                throw new CodecException(CODEC, 8 + 8L * n + i, "Symbol " + i + " has length " + len + ", expected 1..8");
            }
            long v = table.get(U64, offset + 8 + 8L * i);
            t.symbols[i] = len == 8 ? v : v & ((1L << (8 * len)) - 1); // bytes past the length are ignored
            t.lengths[i] = (byte) len;
        }
        return t;
    }

    /** Writes the 2312-byte Lance layout at {@code offset} (zero-filling the unused tail). */
    public void write(MemorySegment dst, long offset) {
        MemorySegment out = dst.asSlice(offset, SERIALIZED_BYTES);
        out.fill((byte) 0);
        // suffix_lim and terminator are encoder-internal hints upstream; the decoder ignores them, we write 0.
        long header = (MAGIC << 32) | (compressed ? 1L << 24 : 0) | count;
        out.set(U64, 0, header);
        for (int i = 0; i < count; i++) {
            out.set(U64, 8 + 8L * i, symbols[i]);
            out.set(ValueLayout.JAVA_BYTE, 8 + 8L * count + i, lengths[i]);
        }
    }

    /** The serialized table as a new array. */
    public byte[] toBytes() {
        byte[] b = new byte[SERIALIZED_BYTES];
        write(MemorySegment.ofArray(b), 0);
        return b;
    }

    /** Whether values are FSST-coded (encoder_switch = 1) rather than stored as is. */
    public boolean compressed() {
        return compressed;
    }

    public int symbolCount() {
        return count;
    }

    /** The bytes of the symbol for {@code code}. */
    public byte[] symbol(int code) {
        byte[] s = new byte[lengths[code]];
        for (int j = 0; j < s.length; j++) {
            s[j] = (byte) (symbols[code] >>> (8 * j));
        }
        return s;
    }

    /** Upper bound of the decoded size of {@code compressedBytes}: 8x when compressed, else 1x. */
    public long maxDecodedLength(long compressedBytes) {
        return compressed ? Math.multiplyExact(compressedBytes, MAX_SYMBOL_LENGTH) : compressedBytes;
    }

    // ------------------------------------------------------------------ decoding

    /**
     * Exact decoded size of {@code length} code bytes at {@code offset}, validating every code.
     * For a batch, calling it once over the whole data range gives the batch's total size.
     */
    public long decodedLength(MemorySegment in, long offset, long length) {
        checkRange(in, offset, length);
        if (!compressed) {
            return length;
        }
        long total = 0;
        long end = offset + length;
        long ip = offset;
        while (ip < end) {
            int c = in.get(ValueLayout.JAVA_BYTE, ip) & 0xFF;
            if (c == ESCAPE) {
                if (ip + 1 >= end) {
                    throw new CodecException(CODEC, ip, "Escape byte without a payload byte");
                }
                total++;
                ip += 2;
            } else {
                int len = lengths[c];
                if (len == 0) {
                    throw new CodecException(CODEC, ip, "Code " + c + " but the table has " + count + " symbols");
                }
                total += len;
                ip++;
            }
        }
        return total;
    }

    private static void checkRange(MemorySegment in, long offset, long length) {
        if (offset < 0 || length < 0 || offset > in.byteSize() - length) {
            throw new CodecException(CODEC, offset, "Input range [" + offset + ", +" + length + ") outside a buffer of "
                    + in.byteSize() + " bytes");
        }
    }

    /**
     * Decodes one string: {@code length} code bytes at {@code offset} into {@code out} at
     * {@code outOffset}, writing at most {@code outLimit} bytes (bytes between the returned length and
     * {@code outLimit} may be overwritten with scratch).
     *
     * @return the decoded length
     * @throws CodecException on an invalid code, a dangling escape, or output past {@code outLimit}
     */
    public long decode(MemorySegment in, long offset, long length, MemorySegment out, long outOffset, long outLimit) {
        checkRange(in, offset, length);
        if (outLimit < 0 || outOffset < 0 || outOffset > out.byteSize() - outLimit) {
            throw new IllegalArgumentException("Output range [" + outOffset + ", +" + outLimit + ") outside " + out.byteSize());
        }
        if (!compressed) {
            if (length > outLimit) {
                throw new CodecException(CODEC, offset, "Value of " + length + " bytes exceeds the output limit " + outLimit);
            }
            MemorySegment.copy(in, offset, out, outOffset, length);
            return length;
        }
        long end = offset + length;
        long ip = offset;
        long op = 0;
        while (ip < end) {
            int c = in.get(ValueLayout.JAVA_BYTE, ip) & 0xFF;
            if (c == ESCAPE) {
                if (ip + 1 >= end) {
                    throw new CodecException(CODEC, ip, "Escape byte without a payload byte");
                }
                if (op >= outLimit) {
                    throw overflow(ip, outLimit);
                }
                out.set(ValueLayout.JAVA_BYTE, outOffset + op, in.get(ValueLayout.JAVA_BYTE, ip + 1));
                op++;
                ip += 2;
            } else {
                int len = lengths[c];
                if (len == 0) {
                    throw new CodecException(CODEC, ip, "Code " + c + " but the table has " + count + " symbols");
                }
                long symbol = symbols[c];
                if (op + 8 <= outLimit) {
                    out.set(U64, outOffset + op, symbol);
                } else if (op + len <= outLimit) {
                    for (int j = 0; j < len; j++) {
                        out.set(ValueLayout.JAVA_BYTE, outOffset + op + j, (byte) (symbol >>> (8 * j)));
                    }
                } else {
                    throw overflow(ip, outLimit);
                }
                op += len;
                ip++;
            }
        }
        return op;
    }

    private static final java.lang.invoke.VarHandle INT_ARRAY =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Decodes {@code n} strings whose codes lie back to back in {@code codes}: string i is
     * {@code codes[ends[i-1], ends[i])} ({@code ends[-1]} = 0; {@code ends} non-decreasing, within
     * {@code codes}), written one after another into {@code out} from 0. String i's decoded end is written to
     * {@code outEnds[i]} (which may be {@code ends} itself). {@code out} must hold {@link #maxDecodedLength}
     * of all codes plus 8 bytes (symbols are stored 8 bytes at a time).
     *
     * @return the decoded length of all strings
     * @throws CodecException on an invalid code or a dangling escape
     */
    public int decodeRun(byte[] codes, long[] ends, int n, byte[] out, long[] outEnds) {
        return decodeRun(codes, ends, n, out, outEnds, new int[n == 0 ? 1 : (int) Math.min(ends[n - 1], codes.length) + 1]);
    }

    /**
     * As {@link #decodeRun(byte[], long[], int, byte[], long[])}, with a caller-owned scratch of at least
     * {@code ends[n-1] + 1} ints. The codes decode as one stream, four at a time across string boundaries
     * (short strings would otherwise pay a loop exit and a tail per string); each code's output position
     * is recorded in {@code pos}, so a string's end is a lookup. An escape's payload byte is marked -1: a
     * string boundary there is an escape split from its payload.
     */
    public int decodeRun(byte[] codes, long[] ends, int n, byte[] out, long[] outEnds, int[] pos) {
        long prev = 0;
        for (int i = 0; i < n; i++) {
            long e = ends[i];
            if (e < prev || e > codes.length) {
                throw new CodecException(CODEC, prev, "String " + i + " codes end at " + e + " (from " + prev + ", of " + codes.length + ")");
            }
            prev = e;
        }
        int total = (int) prev;
        if (Math.multiplyExact((long) total, compressed ? MAX_SYMBOL_LENGTH : 1) + 8 > out.length) {
            throw new IllegalArgumentException("Output of " + out.length + " bytes too small for " + total + " codes");
        }
        if (!compressed) {
            System.arraycopy(codes, 0, out, 0, total);
            if (outEnds != ends) {
                System.arraycopy(ends, 0, outEnds, 0, n);
            }
            return total;
        }
        if (pos.length <= total) {
            throw new IllegalArgumentException("Position scratch of " + pos.length + " for " + total + " codes");
        }
        byte[] lengths = this.lengths;
        long[] symbols = this.symbols;
        int op = 0;
        int ip = 0;
        while (true) {
            // four codes at a time while none is an escape or unknown (a length of 0): one 8-byte store each
            while (ip + 4 <= total) {
                int w = (int) INT_ARRAY.get(codes, ip);
                int c0 = w & 0xFF;
                int c1 = (w >>> 8) & 0xFF;
                int c2 = (w >>> 16) & 0xFF;
                int c3 = w >>> 24;
                int l0 = lengths[c0];
                int l1 = lengths[c1];
                int l2 = lengths[c2];
                int l3 = lengths[c3];
                if ((l0 - 1 | l1 - 1 | l2 - 1 | l3 - 1) < 0) {
                    break;
                }
                pos[ip] = op;
                LONG_ARRAY.set(out, op, symbols[c0]);
                op += l0;
                pos[ip + 1] = op;
                LONG_ARRAY.set(out, op, symbols[c1]);
                op += l1;
                pos[ip + 2] = op;
                LONG_ARRAY.set(out, op, symbols[c2]);
                op += l2;
                pos[ip + 3] = op;
                LONG_ARRAY.set(out, op, symbols[c3]);
                op += l3;
                ip += 4;
            }
            if (ip >= total) {
                break;
            }
            int c = codes[ip] & 0xFF;
            int len = lengths[c];
            pos[ip] = op;
            if (len != 0) {
                LONG_ARRAY.set(out, op, symbols[c]);
                op += len;
                ip++;
            } else if (c == ESCAPE && ip + 1 < total) {
                pos[ip + 1] = -1;
                out[op++] = codes[ip + 1];
                ip += 2;
            } else if (c == ESCAPE) {
                throw new CodecException(CODEC, ip, "Escape byte without a payload byte");
            } else {
                throw new CodecException(CODEC, ip, "Code " + c + " but the table has " + count + " symbols");
            }
        }
        pos[total] = op;
        for (int i = 0; i < n; i++) {
            int e = (int) ends[i];
            int o = pos[e];
            if (o < 0) {
                throw new CodecException(CODEC, e - 1, "Escape byte without a payload byte (string " + i + " ends between them)");
            }
            outEnds[i] = o;
        }
        return op;
    }


    private static final java.lang.invoke.VarHandle LONG_ARRAY =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /**
     * Decodes {@code n} strings held in heap arrays in one pass: string i's codes are
     * {@code in[inOffsets[i], inOffsets[i + 1])} (non-decreasing, within {@code in}). Writes {@code n + 1}
     * output offsets starting at 0 into {@code outOffsets} and returns the decoded bytes (the array may be
     * longer than {@code outOffsets[n]}). Output grows as needed up to {@code outLimit} bytes.
     */
    public byte[] decodeAll(byte[] in, long[] inOffsets, int n, long[] outOffsets, long outLimit) {
        long inBytes = inOffsets[n] - inOffsets[0];
        byte[] out = new byte[(int) Math.min(Math.max(64, inBytes * 3 + 16), Math.min(outLimit, Integer.MAX_VALUE - 16) + 8)];
        int op = 0;
        outOffsets[0] = 0;
        for (int i = 0; i < n; i++) {
            long s = inOffsets[i];
            long e = inOffsets[i + 1];
            if (s < 0 || e < s || e > in.length) {
                throw new CodecException(CODEC, s, "String " + i + " codes [" + s + ", " + e + ") outside " + in.length + " bytes");
            }
            int ip = (int) s;
            int end = (int) e;
            if (!compressed) {
                int len = end - ip;
                if (out.length - op < len) {
                    out = grow(out, op, len, outLimit, ip);
                }
                System.arraycopy(in, ip, out, op, len);
                op += len;
            } else {
                // Fast path: room for the worst case of this string (8 bytes per code, plus the 8-byte store's
                // overhang) is made once, so the loop has one well-predicted branch per code and no capacity checks.
                long need = 8L * (end - ip) + 8;
                if (out.length - op < need && (long) op + need <= Math.min(outLimit, Integer.MAX_VALUE - 16) + 8) {
                    out = grow(out, op, (int) need, outLimit, ip);
                }
                if (out.length - op >= need) {
                    while (ip < end) {
                        int c = in[ip] & 0xFF;
                        int len = lengths[c]; // 0 for the escape code and for codes without a symbol
                        if (len != 0) {
                            LONG_ARRAY.set(out, op, symbols[c]);
                            op += len;
                            ip++;
                        } else if (c == ESCAPE && ip + 1 < end) {
                            out[op++] = in[ip + 1];
                            ip += 2;
                        } else if (c == ESCAPE) {
                            throw new CodecException(CODEC, ip, "Escape byte without a payload byte");
                        } else {
                            throw new CodecException(CODEC, ip, "Code " + c + " but the table has " + count + " symbols");
                        }
                    }
                }
                while (ip < end) { // near the output limit: check every code
                    if (out.length - op < 8) {
                        out = grow(out, op, 8, outLimit, ip);
                    }
                    int c = in[ip] & 0xFF;
                    if (c == ESCAPE) {
                        if (ip + 1 >= end) {
                            throw new CodecException(CODEC, ip, "Escape byte without a payload byte");
                        }
                        out[op++] = in[ip + 1];
                        ip += 2;
                    } else {
                        int len = lengths[c];
                        if (len == 0) {
                            throw new CodecException(CODEC, ip, "Code " + c + " but the table has " + count + " symbols");
                        }
                        LONG_ARRAY.set(out, op, symbols[c]);
                        op += len;
                        ip++;
                    }
                }
            }
            if (op > outLimit) {
                throw overflow(ip, outLimit);
            }
            outOffsets[i + 1] = op;
        }
        return out;
    }

    private static byte[] grow(byte[] out, int op, int need, long outLimit, long ip) {
        long want = Math.max((long) out.length * 2, (long) op + need);
        long cap = Math.min(outLimit, Integer.MAX_VALUE - 16) + 8;
        if ((long) op + need > cap) {
            throw overflow(ip, outLimit);
        }
        return java.util.Arrays.copyOf(out, (int) Math.min(want, cap));
    }

    private static CodecException overflow(long ip, long outLimit) {
        return new CodecException(CODEC, ip, "Decoded output exceeds the limit of " + outLimit + " bytes");
    }

    /**
     * Decodes {@code count} strings. String i's codes are
     * {@code inData[inDataOffset + (inOffsets[i] - inOffsets[0]) ..  + (inOffsets[i+1] - inOffsets[i]))};
     * the input offsets ({@code count + 1} of {@code offsetBytes} = 4 or 8, little-endian) must be
     * non-decreasing and stay within {@code inDataLength}. Writes {@code count + 1} output offsets of the
     * same width starting at 0 and the decoded bytes at {@code outDataOffset}, at most
     * {@code outLimit} of them.
     *
     * @return the total decoded length
     */
    public long decodeBatch(int offsetBytes, MemorySegment inOffsets, long inOffsetsOffset, long count,
                            MemorySegment inData, long inDataOffset, long inDataLength,
                            MemorySegment outOffsets, long outOffsetsOffset,
                            MemorySegment outData, long outDataOffset, long outLimit) {
        if (offsetBytes != 4 && offsetBytes != 8) {
            throw new IllegalArgumentException("Offset width must be 4 or 8 bytes: " + offsetBytes);
        }
        checkRange(inData, inDataOffset, inDataLength);
        long base = readOffset(offsetBytes, inOffsets, inOffsetsOffset, 0);
        long prev = base;
        long pos = 0;
        writeOffset(offsetBytes, outOffsets, outOffsetsOffset, 0, 0);
        for (long i = 0; i < count; i++) {
            long next = readOffset(offsetBytes, inOffsets, inOffsetsOffset, i + 1);
            if (next < prev || next - base > inDataLength) {
                throw new CodecException(CODEC, inOffsetsOffset + (i + 1) * offsetBytes, "Offset " + (i + 1) + " = " + next
                        + " is before " + prev + " or past the data end " + (base + inDataLength));
            }
            pos += decode(inData, inDataOffset + (prev - base), next - prev, outData, outDataOffset + pos, outLimit - pos);
            if (offsetBytes == 4 && pos > Integer.MAX_VALUE) {
                throw new CodecException(CODEC, -1, "Decoded size " + pos + " does not fit 32-bit offsets");
            }
            writeOffset(offsetBytes, outOffsets, outOffsetsOffset, i + 1, pos);
            prev = next;
        }
        return pos;
    }

    static long readOffset(int offsetBytes, MemorySegment s, long off, long i) {
        return offsetBytes == 4 ? s.get(U32, off + 4 * i) & 0xFFFF_FFFFL : s.get(U64, off + 8 * i);
    }

    static void writeOffset(int offsetBytes, MemorySegment s, long off, long i, long v) {
        if (offsetBytes == 4) {
            s.set(U32, off + 4 * i, (int) v);
        } else {
            s.set(U64, off + 8 * i, v);
        }
    }

    // ------------------------------------------------------------------ encoding (used by FsstEncoder)

    int length(int code) {
        return lengths[code];
    }

    long packedSymbol(int code) {
        return symbols[code];
    }

    private int[][] index() {
        int[][] idx = byFirstByte;
        if (idx == null) {
            int[] sizes = new int[256];
            for (int c = 0; c < count; c++) {
                sizes[(int) (symbols[c] & 0xFF)]++;
            }
            idx = new int[256][];
            for (int b = 0; b < 256; b++) {
                idx[b] = new int[sizes[b]];
                sizes[b] = 0;
            }
            for (int c = 0; c < count; c++) {
                int b = (int) (symbols[c] & 0xFF);
                idx[b][sizes[b]++] = c;
            }
            for (int b = 0; b < 256; b++) {
                Integer[] boxed = Arrays.stream(idx[b]).boxed().toArray(Integer[]::new);
                Arrays.sort(boxed, (x, y) -> lengths[y] != lengths[x] ? lengths[y] - lengths[x] : x - y);
                idx[b] = Arrays.stream(boxed).mapToInt(Integer::intValue).toArray();
            }
            byFirstByte = idx;
        }
        return idx;
    }

    /** Longest symbol matching {@code s[pos..end)}, or -1 (the byte must be escaped). */
    int longestMatch(byte[] s, int pos, int end) {
        int[] candidates = index()[s[pos] & 0xFF];
        if (candidates.length == 0) {
            return -1;
        }
        int avail = Math.min(8, end - pos);
        long word = 0;
        for (int j = 0; j < avail; j++) {
            word |= (s[pos + j] & 0xFFL) << (8 * j);
        }
        for (int c : candidates) {
            int len = lengths[c];
            if (len <= avail) {
                long mask = len == 8 ? -1L : (1L << (8 * len)) - 1;
                if ((word & mask) == symbols[c]) {
                    return c;
                }
            }
        }
        return -1;
    }

    /**
     * Encodes {@code s[from..to)} greedily (longest symbol first, escape otherwise) into {@code out}
     * from {@code outPos}; {@code out} needs {@code 2 * (to - from)} bytes of room.
     *
     * @return the new output position
     */
    int encode(byte[] s, int from, int to, byte[] out, int outPos) {
        int pos = from;
        int op = outPos;
        while (pos < to) {
            int c = longestMatch(s, pos, to);
            if (c < 0) {
                out[op++] = (byte) ESCAPE;
                out[op++] = s[pos++];
            } else {
                out[op++] = (byte) c;
                pos += lengths[c];
            }
        }
        return op;
    }
}
