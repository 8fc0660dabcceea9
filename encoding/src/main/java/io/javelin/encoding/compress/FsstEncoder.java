package io.javelin.encoding.compress;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * FSST encoder producing tables and code streams that Lance's decoder reads.
 *
 * <p>Training follows the FSST paper (Boncz, Neumann, Leis, VLDB 2020) and upstream's
 * {@code build_symbol_table}: five rounds over a growing fraction (8, 38, 68, 98, 128 of 128) of a
 * ~16 KiB sample; each round compresses the sample greedily with the current table, counts single
 * codes and adjacent code pairs, and keeps the 255 candidates of highest gain ({@code count x length},
 * single bytes boosted 8x, pairs merged up to 8 bytes); the best-scoring table wins.
 * <b>Simpler than upstream</b>: matching is a first-byte index with longest-first probing instead of
 * the short-code/hash tables, codes are not renumbered by length (suffix_lim and terminator are
 * written as 0; the decoder ignores them), and no terminator byte is reserved. Output is therefore not
 * byte-identical to Lance's, but any Lance decoder reads it.
 */
public final class FsstEncoder {

    /** Lance only FSST-compresses pages of at least this many bytes; smaller ones get encoder_switch = 0. */
    public static final int MIN_COMPRESS_INPUT = 32 * 1024;
    private static final int SAMPLE_TARGET = 1 << 14;
    private static final int SAMPLE_LINE = 512;
    private static final int PSEUDO = 256; // ids 0..255: escaped bytes; 256 + code: real symbols

    private FsstEncoder() {
    }

    /** Worst-case compressed size: every byte escaped. */
    public static long maxCompressedLength(long inputBytes) {
        return 2 * inputBytes;
    }

    /** Trains a table on the strings given as {@code count + 1} offsets (4 or 8 bytes) into {@code data}. */
    public static FsstSymbolTable train(int offsetBytes, MemorySegment offsets, long offsetsOffset, long count,
                                        MemorySegment data, long dataOffset) {
        long base = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, 0);
        long total = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, count) - base;
        List<byte[]> sample = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(4637947L);
        long taken = 0;
        boolean all = total <= 2L * SAMPLE_TARGET;
        long attempts = 0;
        while (count > 0 && (all ? attempts < count : taken < SAMPLE_TARGET && attempts < 4 * count + 64)) {
            long i = all ? attempts : random.nextLong(count);
            attempts++;
            long start = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, i) - base;
            long end = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, i + 1) - base;
            long len = end - start;
            if (len <= 0) {
                continue;
            }
            if (!all && len > SAMPLE_LINE) {
                start += random.nextLong(len - SAMPLE_LINE + 1);
                len = SAMPLE_LINE;
            }
            byte[] line = new byte[(int) len];
            MemorySegment.copy(data, ValueLayout.JAVA_BYTE, dataOffset + start, line, 0, line.length);
            sample.add(line);
            taken += len;
        }
        return train(sample);
    }

    /** Trains a table on sample strings. */
    public static FsstSymbolTable train(List<byte[]> sample) {
        FsstSymbolTable table = FsstSymbolTable.of();
        FsstSymbolTable best = table;
        long bestGain = Long.MIN_VALUE;
        Counters bestCounters = null;
        for (int frac = 8; ; frac += 30) {
            Counters counters = new Counters(table.symbolCount());
            long gain = count(table, sample, frac, counters);
            if (gain >= bestGain) {
                bestGain = gain;
                best = table;
                bestCounters = counters;
            }
            if (frac >= 128) {
                break;
            }
            table = makeTable(table, counters, frac);
        }
        return makeTable(best, bestCounters, 128);
    }

    /** Counts of single ids and adjacent id pairs, over ids 0..255 (bytes) and 256 + code. */
    private static final class Counters {
        final int ids;
        final long[] one;
        final int[] two;

        Counters(int symbols) {
            ids = PSEUDO + symbols;
            one = new long[ids];
            two = new int[ids * ids];
        }
    }

    private static boolean inSample(int i, int frac) {
        return frac >= 128 || ((i * 0x9E3779B1) >>> 25) < frac;
    }

    /** Compresses the sample with {@code table}, filling counters; returns the bytes saved. */
    private static long count(FsstSymbolTable table, List<byte[]> sample, int frac, Counters counters) {
        long gain = 0;
        for (int i = 0; i < sample.size(); i++) {
            if (!inSample(i, frac)) {
                continue;
            }
            byte[] s = sample.get(i);
            int pos = 0;
            int prev = -1;
            while (pos < s.length) {
                int start = pos;
                int code = table.longestMatch(s, pos, s.length);
                int id;
                int len;
                if (code < 0) {
                    id = s[pos] & 0xFF;
                    len = 1;
                    gain -= 1; // escape: two output bytes for one input byte
                } else {
                    id = PSEUDO + code;
                    len = table.length(code);
                    gain += len - 1;
                }
                pos += len;
                counters.one[id]++;
                if (len > 1) {
                    counters.one[s[start] & 0xFF]++;
                }
                if (prev >= 0 && frac < 128) {
                    counters.two[prev * counters.ids + id]++;
                    if (len > 1) {
                        counters.two[prev * counters.ids + (s[start] & 0xFF)]++;
                    }
                }
                prev = id;
            }
        }
        return gain;
    }

    private record Symbol(long value, int length) {

        static Symbol concat(Symbol a, Symbol b) {
            int len = Math.min(8, a.length + b.length);
            long v = a.value | (a.length == 8 ? 0 : b.value << (8 * a.length));
            if (len < 8) {
                v &= (1L << (8 * len)) - 1;
            }
            return new Symbol(v, len);
        }
    }

    private static Symbol symbolOf(FsstSymbolTable table, int id) {
        return id < PSEUDO ? new Symbol(id, 1) : new Symbol(table.packedSymbol(id - PSEUDO), table.length(id - PSEUDO));
    }

    private static FsstSymbolTable makeTable(FsstSymbolTable table, Counters counters, int frac) {
        Map<Symbol, Long> candidates = new HashMap<>();
        long minCount = Math.max(1, (5L * frac) / 128);
        for (int a = 0; a < counters.ids; a++) {
            long c1 = counters.one[a];
            if (c1 == 0) {
                continue;
            }
            Symbol s1 = symbolOf(table, a);
            if (c1 >= minCount) {
                candidates.merge(s1, (s1.length == 1 ? 8 : 1) * c1 * s1.length, Long::sum);
            }
            if (frac >= 128 || s1.length == 8) {
                continue;
            }
            for (int b = 0; b < counters.ids; b++) {
                int c2 = counters.two[a * counters.ids + b];
                if (c2 < minCount) {
                    continue;
                }
                Symbol s3 = Symbol.concat(s1, symbolOf(table, b));
                candidates.merge(s3, (long) c2 * s3.length, Long::sum);
            }
        }
        List<Map.Entry<Symbol, Long>> ranked = new ArrayList<>(candidates.entrySet());
        ranked.sort((x, y) -> {
            int byGain = Long.compare(y.getValue(), x.getValue());
            return byGain != 0 ? byGain : Long.compareUnsigned(x.getKey().value, y.getKey().value) != 0
                    ? Long.compareUnsigned(x.getKey().value, y.getKey().value)
                    : Integer.compare(x.getKey().length, y.getKey().length);
        });
        int n = Math.min(FsstSymbolTable.MAX_SYMBOLS, ranked.size());
        long[] values = new long[n];
        int[] lens = new int[n];
        for (int i = 0; i < n; i++) {
            values[i] = ranked.get(i).getKey().value;
            lens[i] = ranked.get(i).getKey().length;
        }
        return FsstSymbolTable.ofPacked(values, lens, n);
    }

    /** Encodes one string with {@code table}; the result is at most twice as long. */
    public static byte[] encode(FsstSymbolTable table, byte[] value) {
        if (!table.compressed()) {
            return value.clone();
        }
        byte[] out = new byte[2 * value.length];
        int n = table.encode(value, 0, value.length, out, 0);
        return java.util.Arrays.copyOf(out, n);
    }

    /**
     * Lance-compatible page compression (upstream {@code fsst::compress}): trains a table on the
     * {@code count} strings ({@code count + 1} offsets of {@code offsetBytes} into {@code data}), writes
     * the 2312-byte table at {@code tableOffset}, the {@code count + 1} output offsets (same width,
     * starting at 0) and the codes. Inputs under {@link #MIN_COMPRESS_INPUT} bytes get the
     * encoder_switch = 0 table and are copied. {@code outData} needs {@link #maxCompressedLength} bytes.
     *
     * @return the number of bytes written to {@code outData}
     */
    public static long compress(int offsetBytes, MemorySegment offsets, long offsetsOffset, long count,
                                MemorySegment data, long dataOffset,
                                MemorySegment table, long tableOffset,
                                MemorySegment outOffsets, long outOffsetsOffset,
                                MemorySegment outData, long outDataOffset) {
        if (offsetBytes != 4 && offsetBytes != 8) {
            throw new IllegalArgumentException("Offset width must be 4 or 8 bytes: " + offsetBytes);
        }
        long base = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, 0);
        long total = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, count) - base;
        FsstSymbolTable st = total < MIN_COMPRESS_INPUT
                ? FsstSymbolTable.uncompressed()
                : train(offsetBytes, offsets, offsetsOffset, count, data, dataOffset);
        st.write(table, tableOffset);
        return compressWith(st, offsetBytes, offsets, offsetsOffset, count, data, dataOffset, outOffsets, outOffsetsOffset,
                outData, outDataOffset);
    }

    /** Encodes {@code count} strings with a given table (see {@link #compress} for the layout). */
    public static long compressWith(FsstSymbolTable st, int offsetBytes, MemorySegment offsets, long offsetsOffset, long count,
                                    MemorySegment data, long dataOffset,
                                    MemorySegment outOffsets, long outOffsetsOffset,
                                    MemorySegment outData, long outDataOffset) {
        long base = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, 0);
        long pos = 0;
        FsstSymbolTable.writeOffset(offsetBytes, outOffsets, outOffsetsOffset, 0, 0);
        byte[] in = new byte[0];
        byte[] out = new byte[0];
        for (long i = 0; i < count; i++) {
            long start = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, i) - base;
            long end = FsstSymbolTable.readOffset(offsetBytes, offsets, offsetsOffset, i + 1) - base;
            int len = Math.toIntExact(end - start);
            if (!st.compressed()) {
                MemorySegment.copy(data, dataOffset + start, outData, outDataOffset + pos, len);
                pos += len;
            } else {
                if (in.length < len) {
                    in = new byte[Math.max(len, 2 * in.length)];
                    out = new byte[2 * in.length];
                }
                MemorySegment.copy(data, ValueLayout.JAVA_BYTE, dataOffset + start, in, 0, len);
                int n = st.encode(in, 0, len, out, 0);
                MemorySegment.copy(out, 0, outData, ValueLayout.JAVA_BYTE, outDataOffset + pos, n);
                pos += n;
            }
            FsstSymbolTable.writeOffset(offsetBytes, outOffsets, outOffsetsOffset, i + 1, pos);
        }
        return pos;
    }
}
