package io.javelin.encoding.v21;

import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import java.util.List;

/**
 * Decodes only the taken rows of mini-block chunks without repetition (one level and one value slot per
 * row): levels and cheap value encodings (flat, variable, bit-packed) decode per chunk and the wanted slots
 * are picked out; FSST strings are decompressed only for the picked values, dictionary indices are
 * gathered only for them. The result holds exactly the wanted rows, in page order.
 */
final class TakeDecode {

    private TakeDecode() {
    }

    /** True if chunks of this layout decode row by row here (no repetition, no per-item validity). */
    static boolean supports(MiniBlockLayout mb, LeafKind kind) {
        return (kind.variable() || kind.bitsPerValue() == 1 || kind.bitsPerValue() % 8 == 0) && !mb.hasRepCompression() && !Compressions.hasItemValidity(mb.getValueCompression())
                && !(mb.hasDictionary() && Compressions.hasItemValidity(mb.getDictionary()));
    }

    /**
     * The rows {@code wanted} (page-local, ascending, distinct) of the chunks {@code chunks}: chunk k holds
     * {@code counts[k]} rows starting at page row {@code firstRows[k]}; every wanted row lies in a chunk.
     */
    static LeafPage pick(String resource, long at, MiniBlockLayout mb, List<Buf> chunks, long[] counts, long[] firstRows, Values dict,
                         long[] wanted, LeafKind kind, RepDef rd) {
        boolean hasDef = mb.hasDefCompression();
        int m = wanted.length;
        short[] def = hasDef ? new short[m] : null;
        ValuesBuilder vb = kind.builder().create();
        int w = 0;
        for (int k = 0; k < chunks.size() && w < m; k++) {
            long first = firstRows[k];
            long n = counts[k];
            int w0 = w;
            while (w < m && wanted[w] < first + n) {
                if (wanted[w] < first) {
                    throw new io.javelin.encoding.CorruptFileException(resource, at, "Row " + wanted[w] + " in no planned chunk");
                }
                w++;
            }
            if (w == w0) {
                continue;
            }
            int[] idx = new int[w - w0];
            for (int i = w0; i < w; i++) {
                idx[i - w0] = (int) (wanted[i] - first);
            }
            Buf chunk = chunks.get(k);
            StructuralPages.ChunkParts parts = StructuralPages.chunkParts(mb, chunk);
            if (hasDef) {
                if (parts.numLevels() != n) {
                    throw chunk.corrupt(0, "Chunk of " + n + " values has " + parts.numLevels() + " levels");
                }
                short[] levels = Compressions.levels(mb.getDefCompression(), parts.def(), n);
                if (levels.length < n) {
                    throw chunk.corrupt(0, "Chunk of " + n + " values has " + levels.length + " def levels");
                }
                for (int i = 0; i < idx.length; i++) {
                    def[w0 + i] = levels[idx[i]];
                }
            }
            Values v = values(mb.getValueCompression(), parts.values(), (int) n, chunk, idx);
            if (dict != null) {
                StructuralPages.gather(chunk, dict, mb.getNumDictionaryItems(), v, vb);
            } else {
                vb.append(v, 0, idx.length);
            }
        }
        if (w != m) {
            throw new io.javelin.encoding.CorruptFileException(resource, at, "Rows past the planned chunks");
        }
        return new LeafPage(resource, rd, m, m, null, def, vb.build());
    }

    /** The values at {@code idx} of a chunk of {@code n}: FSST decompresses only those. */
    private static Values values(CompressiveEncoding e, List<Buf> bufs, int n, Buf chunk, int[] idx) {
        if (e.getCompressionCase() == CompressiveEncoding.CompressionCase.FSST) {
            Values inner = values(e.getFsst().getValues(), bufs, n, chunk, idx);
            if (!(inner instanceof Values.Var v)) {
                throw chunk.corrupt(0, "FSST over fixed-width values");
            }
            return Codecs.fsstDecode(chunk, e.getFsst().getSymbolTable(), v);
        }
        Values all = Compressions.miniBlock(e, bufs, n, chunk);
        if (all.count() < n) {
            throw chunk.corrupt(0, "Chunk of " + n + " values decoded " + all.count());
        }
        return pick(all, idx, chunk);
    }

    /** Values {@code idx} of {@code v}. */
    static Values pick(Values v, int[] idx, Buf ctx) {
        if (v instanceof Values.Var var) {
            long[] off = new long[idx.length + 1];
            long bytes = 0;
            for (int i = 0; i < idx.length; i++) {
                bytes += var.offsets()[idx[i] + 1] - var.offsets()[idx[i]];
                off[i + 1] = bytes;
            }
            byte[] data = new byte[Math.toIntExact(bytes)];
            for (int i = 0; i < idx.length; i++) {
                long s = var.offsets()[idx[i]];
                System.arraycopy(var.data(), (int) s, data, (int) off[i], (int) (off[i + 1] - off[i]));
            }
            return new Values.Var(off, data);
        }
        Values.Fixed f = (Values.Fixed) v;
        if (f.itemValidity() != null) {
            throw ctx.corrupt(0, "Item validity in a chunk without it");
        }
        int bits = f.bitsPerValue();
        if (bits == 1) {
            byte[] out = new byte[(idx.length + 7) >>> 3];
            for (int i = 0; i < idx.length; i++) {
                if ((f.data()[idx[i] >>> 3] & (1 << (idx[i] & 7))) != 0) {
                    out[i >>> 3] |= (byte) (1 << (i & 7));
                }
            }
            return new Values.Fixed(out, 1, idx.length, null, f.itemsPerValue());
        }
        if (bits % 8 != 0) {
            throw ctx.corrupt(0, "Values of " + bits + " bits cannot be picked");
        }
        int bw = bits / 8;
        byte[] out = new byte[Math.multiplyExact(idx.length, bw)];
        for (int i = 0; i < idx.length; i++) {
            System.arraycopy(f.data(), idx[i] * bw, out, i * bw, bw);
        }
        return new Values.Fixed(out, bits, idx.length, null, f.itemsPerValue());
    }
}
