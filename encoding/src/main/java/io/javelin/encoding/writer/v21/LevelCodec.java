package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.kernel.Kernels;
import java.lang.foreign.MemorySegment;

/**
 * Block codec of the rep or def levels of a mini-block page, chosen once per page from the whole
 * page's levels and applied to each chunk's slice (as Lance's {@code compress_levels}).
 */
abstract class LevelCodec {
    abstract CompressiveEncoding encoding();

    abstract byte[] encode(short[] levels, int start, int count);

    static LevelCodec choose(short[] levels, int n, LanceFileVersion version) {
        byte[] bytes = new byte[n * 2];
        for (int i = 0; i < n; i++) {
            bytes[2 * i] = (byte) levels[i];
            bytes[2 * i + 1] = (byte) (levels[i] >> 8);
        }
        int[] widths = Bitpack.widths(bytes, 0, n, 2);
        int maxW = 0;
        for (int w : widths) {
            maxW = Math.max(maxW, w);
        }
        boolean tiny = widths.length == 1 && 128L * widths[0] >= 2L * n;
        long packedSize = n <= 1024 ? 2 + 128L * maxW : (long) ((n + 1023) / 1024) * 128 * maxW;
        if (version == LanceFileVersion.V2_2) {
            // The 2.2 strategy tries RLE (u16 values, u8 run lengths) first: used when smaller than raw.
            long runs = Kernels.get().countRleEntries(2, MemorySegment.ofArray(bytes), 0, n);
            long rleSize = 8 + runs * 3;
            if (rleSize < 2L * n) {
                return new Rle();
            }
        }
        if (maxW >= 16 || tiny || maxW == 0) {
            return new Raw();
        }
        return n <= 1024 ? new Inline() : new OutOfLine(maxW);
    }

    /** Raw u16 levels (Flat 16): always legal. */
    static final class Raw extends LevelCodec {
        @Override
        CompressiveEncoding encoding() {
            return Encodings21.flat(16);
        }

        @Override
        byte[] encode(short[] levels, int start, int count) {
            Bytes b = new Bytes(count * 2);
            for (int i = 0; i < count; i++) {
                b.u16(levels[start + i]);
            }
            return b.toArray();
        }
    }

    static byte[] toBytes(short[] levels, int start, int count) {
        byte[] out = new byte[count * 2];
        for (int i = 0; i < count; i++) {
            out[2 * i] = (byte) levels[start + i];
            out[2 * i + 1] = (byte) (levels[start + i] >> 8);
        }
        return out;
    }

    /** InlineBitpacking block: one 1024-level block {@code [W u16][128*W]} (pages of ≤ 1024 levels). */
    static final class Inline extends LevelCodec {
        @Override
        CompressiveEncoding encoding() {
            return Encodings21.inlineBitpacking(16);
        }

        @Override
        byte[] encode(short[] levels, int start, int count) {
            byte[] b = toBytes(levels, start, count);
            int w = Bitpack.widths(b, 0, count, 2)[0];
            Bytes out = new Bytes(2 + 128 * w);
            out.u16(w);
            out.put(Bitpack.packBlock(b, 0, count, 2, w));
            return out.toArray();
        }
    }

    /** OutOfLineBitpacking block at a fixed width; the tail is padded or raw, whichever is smaller. */
    static final class OutOfLine extends LevelCodec {
        private final int w;

        OutOfLine(int w) {
            this.w = w;
        }

        @Override
        CompressiveEncoding encoding() {
            return Encodings21.outOfLineBitpacking(16, w);
        }

        @Override
        byte[] encode(short[] levels, int start, int count) {
            byte[] b = toBytes(levels, start, count);
            Bytes out = new Bytes(count);
            int whole = count / 1024;
            for (int i = 0; i < whole; i++) {
                out.put(Bitpack.packBlock(b, i * 2048, 1024, 2, w));
            }
            int rem = count - whole * 1024;
            if (rem > 0) {
                long paddingCost = (long) w * (1024 - rem);
                long savings = (long) (16 - w) * rem;
                if (paddingCost < savings) {
                    out.put(Bitpack.packBlock(b, whole * 2048, rem, 2, w));
                } else {
                    out.put(b, whole * 2048, rem * 2);
                }
            }
            return out.toArray();
        }
    }

    /** 2.2 RLE block: {@code [u64 values bytes][u16 values][u8 run lengths]}. */
    static final class Rle extends LevelCodec {
        @Override
        CompressiveEncoding encoding() {
            return Encodings21.rle(16);
        }

        @Override
        byte[] encode(short[] levels, int start, int count) {
            byte[] b = toBytes(levels, start, count);
            byte[][] enc = FixedCompressors.rleEncode(b, 0, count, 2);
            Bytes out = new Bytes(8 + enc[0].length + enc[1].length);
            out.u64(enc[0].length);
            out.put(enc[0]);
            out.put(enc[1]);
            return out.toArray();
        }
    }
}
