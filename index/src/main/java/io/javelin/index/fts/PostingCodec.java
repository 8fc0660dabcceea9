package io.javelin.index.fts;

import io.javelin.index.CorruptIndexException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Lance's v1 posting blocks ({@code posting_tail_codec=fixed32_v1}, what lance-core 7.0.0 writes),
 * one binary per block of {@link BitPacker4x#BLOCK_LEN} docs:
 * <ul>
 *   <li>full block: {@code f32 block_max_score, u32 first_doc, u8 bits, deltas (BitPacker4x sorted from first_doc),
 *       u8 bits, freqs (BitPacker4x)};</li>
 *   <li>last, shorter block: {@code f32 block_max_score, u32 doc ids..., u32 freqs...}.</li>
 * </ul>
 * Positions ({@code _position}): per doc a list of binaries, the first holding {@code u32} count,
 * then full blocks ({@code u8 bits} + 128 deltas sorted from the previous block's last value), then
 * the remaining positions as raw {@code u32}.
 */
public final class PostingCodec {

    private PostingCodec() {
    }

    /** Decodes {@code length} postings from the block binaries of one {@code _posting} list. */
    public static PostingList decode(List<byte[]> blocks, int length, String resource) {
        CorruptIndexException.check(length >= 0, resource, "negative posting length %d", length);
        int expectBlocks = (length + BitPacker4x.BLOCK_LEN - 1) / BitPacker4x.BLOCK_LEN;
        CorruptIndexException.check(blocks.size() == expectBlocks, resource,
                "%d posting blocks for %d docs (expected %d)", blocks.size(), length, expectBlocks);
        int[] docs = new int[length];
        int[] freqs = new int[length];
        int[] tmp = new int[BitPacker4x.BLOCK_LEN];
        int at = 0;
        for (byte[] b : blocks) {
            int n = Math.min(BitPacker4x.BLOCK_LEN, length - at);
            if (n == BitPacker4x.BLOCK_LEN) {
                CorruptIndexException.check(b.length >= 9, resource, "full posting block of %d bytes", b.length);
                int first = i32(b, 4);
                int bits = b[8] & 0xFF;
                CorruptIndexException.check(bits <= 32 && 9 + BitPacker4x.blockBytes(bits) + 1 <= b.length, resource,
                        "posting block doc width %d does not fit %d bytes", bits, b.length);
                BitPacker4x.unpackSorted(b, 9, bits, first, tmp);
                System.arraycopy(tmp, 0, docs, at, n);
                int fo = 9 + BitPacker4x.blockBytes(bits);
                int fbits = b[fo] & 0xFF;
                CorruptIndexException.check(fbits <= 32 && fo + 1 + BitPacker4x.blockBytes(fbits) == b.length, resource,
                        "posting block freq width %d does not fit %d bytes", fbits, b.length);
                BitPacker4x.unpack(b, fo + 1, fbits, tmp);
                System.arraycopy(tmp, 0, freqs, at, n);
            } else {
                CorruptIndexException.check(b.length == 4 + 8 * n, resource, "tail posting block of %d bytes for %d docs", b.length, n);
                ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    docs[at + i] = buf.getInt(4 + 4 * i);
                    freqs[at + i] = buf.getInt(4 + 4 * n + 4 * i);
                }
            }
            at += n;
        }
        for (int i = 0; i < length; i++) {
            CorruptIndexException.check(docs[i] >= 0 && (i == 0 || Integer.compareUnsigned(docs[i], docs[i - 1]) > 0), resource,
                    "posting doc ids not ascending at %d", i);
            CorruptIndexException.check(freqs[i] > 0, resource, "posting frequency %d at %d", freqs[i], i);
        }
        return new PostingList(docs, freqs, null);
    }

    /** Decodes one doc's positions from its binaries. */
    public static int[] decodePositions(List<byte[]> parts, String resource) {
        CorruptIndexException.check(!parts.isEmpty() && parts.get(0).length == 4, resource, "position list lacks its count");
        int count = i32(parts.get(0), 0);
        CorruptIndexException.check(count >= 0 && count <= (1 << 26), resource, "position count %d", count);
        int[] out = new int[count];
        int[] tmp = new int[BitPacker4x.BLOCK_LEN];
        int at = 0, prev = 0;
        for (int p = 1; p < parts.size(); p++) {
            byte[] b = parts.get(p);
            int remaining = count - at;
            if (remaining >= BitPacker4x.BLOCK_LEN && p < parts.size() - 1 || remaining >= BitPacker4x.BLOCK_LEN && b.length != 4 * remaining) {
                CorruptIndexException.check(b.length >= 1, resource, "empty position block");
                int bits = b[0] & 0xFF;
                CorruptIndexException.check(bits <= 32 && b.length == 1 + BitPacker4x.blockBytes(bits), resource,
                        "position block width %d does not fit %d bytes", bits, b.length);
                BitPacker4x.unpackSorted(b, 1, bits, prev, tmp);
                System.arraycopy(tmp, 0, out, at, BitPacker4x.BLOCK_LEN);
                at += BitPacker4x.BLOCK_LEN;
                prev = out[at - 1];
            } else {
                CorruptIndexException.check(b.length == 4 * remaining, resource, "position tail of %d bytes for %d positions", b.length, remaining);
                for (int i = 0; i < remaining; i++) {
                    out[at + i] = i32(b, 4 * i);
                }
                at += remaining;
            }
        }
        CorruptIndexException.check(at == count, resource, "%d positions decoded, count says %d", at, count);
        return out;
    }

    static int i32(byte[] b, int at) {
        return (b[at] & 0xFF) | (b[at + 1] & 0xFF) << 8 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 24;
    }
}
