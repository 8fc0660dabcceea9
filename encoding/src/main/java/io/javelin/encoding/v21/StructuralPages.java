package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.ConstantLayout;
import io.javelin.encoding.pb.v21.FullZipLayout;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import io.javelin.encoding.pb.v21.PageLayout;
import io.javelin.encoding.pb.v21.RepDefLayer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Whole-page decoding of the 2.1+ structural layouts into {@link LeafPage}s. */
public final class StructuralPages {

    private StructuralPages() {
    }

    /** The rep/def layers of a page layout. */
    public static List<RepDefLayer> layers(PageLayout p) {
        return switch (p.getLayoutCase()) {
            case MINI_BLOCK_LAYOUT -> p.getMiniBlockLayout().getLayersList();
            case FULL_ZIP_LAYOUT -> p.getFullZipLayout().getLayersList();
            case CONSTANT_LAYOUT -> p.getConstantLayout().getLayersList();
            case BLOB_LAYOUT -> p.getBlobLayout().getLayersList();
            default -> List.of();
        };
    }

    public static Object decode(String resource, long at, PageLayout p, List<Buf> bufs, long numRows, LeafKind kind,
                                long fileSize) {
        if (numRows < 0 || numRows > Compressions.MAX_VALUES) {
            throw new CorruptFileException(resource, at, "Impossible page row count " + numRows);
        }
        RepDef rd = new RepDef(resource, at, layers(p));
        return switch (p.getLayoutCase()) {
            case MINI_BLOCK_LAYOUT -> miniBlock(resource, at, p.getMiniBlockLayout(), bufs, (int) numRows, kind, rd);
            case FULL_ZIP_LAYOUT -> fullZip(resource, at, p.getFullZipLayout(), bufs, (int) numRows, kind, rd);
            case CONSTANT_LAYOUT -> constant(resource, at, p.getConstantLayout(), bufs, (int) numRows, kind, rd);
            case BLOB_LAYOUT -> blob(resource, at, p.getBlobLayout(), bufs, (int) numRows, rd, fileSize);
            default -> throw new UnsupportedEncodingException(resource, at, "Page layout " + p.getLayoutCase() + " not supported");
        };
    }

    // ---------------------------------------------------------------- blob

    static Object blob(String resource, long at, io.javelin.encoding.pb.v21.BlobLayout bl, List<Buf> bufs, int numRows, RepDef rd,
                       long fileSize) {
        LeafKind descKind = new LeafKind(false, 128, 0, 1);
        Object inner = decode(resource, at, bl.getInnerLayout(), bufs, numRows, descKind, fileSize);
        if (!(inner instanceof LeafPage ip) || ip.rep != null || ip.numLevels != numRows) {
            throw new CorruptFileException(resource, at, "Blob descriptors must be a flat page of one per row");
        }
        Buf ctx = new Buf(resource, at, java.lang.foreign.MemorySegment.ofArray(new byte[0]));
        return Blobs.fetch(ctx, fileSize, (Values.Fixed) ip.values, (values, desc) -> {
            short[] def = null;
            short[] rep = null;
            for (int i = 0; i < desc.length; i++) {
                if (desc[i][1] == 0 && desc[i][0] != 0) {
                    if (def == null) {
                        def = new short[desc.length];
                    }
                    def[i] = (short) (desc[i][0] >>> 16);
                    if (rd.maxRep() > 0) {
                        if (rep == null) {
                            rep = new short[desc.length];
                        }
                        rep[i] = (short) (desc[i][0] & 0xFFFF);
                    }
                }
            }
            if (def != null) {
                // null rows carry no value slot only when invisible; blobs are leaves, so keep them all
                for (short d : def) {
                    if (!rd.visible(d)) {
                        throw new CorruptFileException(resource, at, "Blob rows inside lists are not supported");
                    }
                }
            }
            return new LeafPage(resource, rd, numRows, numRows, null, def, values);
        });
    }

    // ---------------------------------------------------------------- mini-block

    /** Chunk table of a mini-block page: byte offset, byte size and value count per chunk. */
    record ChunkTable(long[] offset, long[] bytes, long[] values) {
        int size() {
            return offset.length;
        }
    }

    static ChunkTable chunkTable(MiniBlockLayout mb, Buf meta, long dataSize) {
        int wordW = mb.getHasLargeChunk() ? 4 : 2;
        int nChunks = (int) Math.min(Integer.MAX_VALUE, meta.size() / wordW);
        long numItems = mb.getNumItems();
        if (numItems < 0 || numItems > Compressions.MAX_VALUES) {
            throw meta.corrupt(0, "Impossible mini-block num_items " + numItems);
        }
        long[] off = new long[nChunks];
        long[] bytes = new long[nChunks];
        long[] vals = new long[nChunks];
        long pos = 0;
        long items = 0;
        for (int c = 0; c < nChunks; c++) {
            long word = meta.uint((long) c * wordW, wordW);
            bytes[c] = ((word >>> 4) + 1) * 8;
            off[c] = pos;
            pos += bytes[c];
            int log = (int) (word & 0xF);
            vals[c] = c == nChunks - 1 ? numItems - items : 1L << log;
            if (vals[c] < 0 || items + vals[c] > numItems) {
                throw meta.corrupt((long) c * wordW, "Chunk value counts exceed num_items " + numItems);
            }
            items += vals[c];
        }
        if (items != numItems) {
            throw meta.corrupt(0, "Mini-block chunks hold " + items + " values vs num_items " + numItems);
        }
        if (pos > dataSize) {
            throw meta.corrupt(0, "Mini-block chunks need " + pos + " bytes, the data buffer has " + dataSize);
        }
        return new ChunkTable(off, bytes, vals);
    }

    static Values dictionary(MiniBlockLayout mb, Buf dictBuf) {
        return Compressions.block(mb.getDictionary(), dictBuf, mb.getNumDictionaryItems());
    }

    static LeafPage miniBlock(String resource, long at, MiniBlockLayout mb, List<Buf> bufs, int numRows, LeafKind kind, RepDef rd) {
        boolean dictionary = mb.hasDictionary();
        int expectBufs = 2 + (dictionary ? 1 : 0) + (mb.getRepetitionIndexDepth() > 0 ? 1 : 0);
        if (bufs.size() < expectBufs) {
            throw new CorruptFileException(resource, at, "Mini-block page has " + bufs.size() + " buffers, needs " + expectBufs);
        }
        Buf data = bufs.get(1);
        ChunkTable t = chunkTable(mb, bufs.get(0), data.size());
        Values dict = dictionary ? dictionary(mb, bufs.get(2)) : null;
        List<Buf> chunks = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        for (int c = 0; c < t.size(); c++) {
            chunks.add(data.slice(t.offset()[c], t.bytes()[c]));
            counts.add(t.values()[c]);
        }
        return decodeChunks(resource, mb, chunks, counts, dict, numRows, kind, rd);
    }

    /** Decodes the given chunks (in order) of a mini-block page into one leaf page of {@code numRows} rows. */
    static LeafPage decodeChunks(String resource, MiniBlockLayout mb, List<Buf> chunks, List<Long> counts, Values dict,
                                 int numRows, LeafKind kind, RepDef rd) {
        boolean hasRep = mb.hasRepCompression();
        boolean hasDef = mb.hasDefCompression();
        int wordW = mb.getHasLargeChunk() ? 4 : 2;
        long numBuffers = mb.getNumBuffers();
        if (numBuffers < 1 || numBuffers > 64) {
            throw new CorruptFileException(resource, -1, "Impossible mini-block num_buffers " + numBuffers);
        }
        ValuesBuilder vb = kind.builder().create();
        long totalValues = 0;
        long totalBytes = 0;
        for (int k = 0; k < chunks.size(); k++) {
            totalValues += counts.get(k);
            totalBytes += chunks.get(k).size();
        }
        vb.reserve(Math.min(totalValues, Compressions.MAX_VALUES), kind.variable() ? Math.min(totalBytes, Compressions.MAX_VALUES) : 0);
        ShortList rep = hasRep ? new ShortList() : null;
        ShortList def = hasDef ? new ShortList() : null;
        int levels = 0;
        for (int k = 0; k < chunks.size(); k++) {
            Buf chunk = chunks.get(k);
            long nvals = counts.get(k);
            ChunkParts parts = chunkParts(mb, chunk);
            int numLevels = parts.numLevels();
            Buf repBuf = parts.rep();
            Buf defBuf = parts.def();
            List<Buf> vbufs = parts.values();
            if (hasRep || hasDef) {
                if (hasRep) {
                    rep.addAll(Compressions.levels(mb.getRepCompression(), repBuf, numLevels));
                }
                if (hasDef) {
                    def.addAll(Compressions.levels(mb.getDefCompression(), defBuf, numLevels));
                }
                levels += numLevels;
            } else {
                levels += (int) nvals;
            }
            Values v = Compressions.miniBlock(mb.getValueCompression(), vbufs, (int) nvals, chunk);
            if (dict != null) {
                gather(chunk, dict, mb.getNumDictionaryItems(), v, vb);
            } else {
                vb.append(v, 0, (int) nvals);
            }
        }
        return new LeafPage(resource, rd, numRows, levels, rep == null ? null : rep.toArray(), def == null ? null : def.toArray(),
                vb.build());
    }

    /** The parts of one mini-block chunk: level count, rep and def level buffers, value buffers. */
    record ChunkParts(int numLevels, Buf rep, Buf def, List<Buf> values) {
    }

    static ChunkParts chunkParts(MiniBlockLayout mb, Buf chunk) {
        boolean hasRep = mb.hasRepCompression();
        boolean hasDef = mb.hasDefCompression();
        int wordW = mb.getHasLargeChunk() ? 4 : 2;
        long numBuffers = mb.getNumBuffers();
        if (numBuffers < 1 || numBuffers > 64) {
            throw chunk.corrupt(0, "Impossible mini-block num_buffers " + numBuffers);
        }
        int p = 0;
        int numLevels = chunk.u16(p);
        p += 2;
        int repSize = 0;
        int defSize = 0;
        if (hasRep) {
            repSize = chunk.u16(p);
            p += 2;
        }
        if (hasDef) {
            defSize = chunk.u16(p);
            p += 2;
        }
        long[] sizes = new long[(int) numBuffers];
        for (int b = 0; b < numBuffers; b++) {
            sizes[b] = chunk.uint(p, wordW);
            p += wordW;
        }
        long q = align8(p);
        Buf repBuf = chunk.slice(q, repSize);
        q = align8(q + repSize);
        Buf defBuf = chunk.slice(q, defSize);
        q = align8(q + defSize);
        List<Buf> vbufs = new ArrayList<>((int) numBuffers);
        for (int b = 0; b < numBuffers; b++) {
            vbufs.add(chunk.slice(q, sizes[b]));
            q = align8(q + sizes[b]);
        }
        return new ChunkParts(numLevels, repBuf, defBuf, vbufs);
    }

    static void gather(Buf ctx, Values dict, long dictItems, Values indices, ValuesBuilder vb) {
        if (!(indices instanceof Values.Fixed f) || (f.bitsPerValue() != 32 && f.bitsPerValue() != 64
                && f.bitsPerValue() != 8 && f.bitsPerValue() != 16)) {
            throw ctx.corrupt(0, "Dictionary indices must be integers");
        }
        int w = f.bitsPerValue() / 8;
        int n = f.count();
        long limit = Math.min(dictItems, dict.count());
        java.lang.foreign.MemorySegment idx = java.lang.foreign.MemorySegment.ofArray(f.data());
        Values gathered;
        try {
            if (dict instanceof Values.Fixed d && w != 8 && d.itemValidity() == null
                    && (d.bitsPerValue() == 8 || d.bitsPerValue() == 16 || d.bitsPerValue() == 32 || d.bitsPerValue() == 64
                    || d.bitsPerValue() == 128)) {
                int vw = d.bitsPerValue() / 8;
                byte[] out = new byte[Math.multiplyExact(n, vw)];
                io.javelin.encoding.kernel.Kernels.get().gather(vw, java.lang.foreign.MemorySegment.ofArray(d.data()), 0, limit, w,
                        idx, 0, n, java.lang.foreign.MemorySegment.ofArray(out), 0);
                gathered = new Values.Fixed(out, d.bitsPerValue(), n);
            } else if (dict instanceof Values.Var d) {
                gathered = gatherVar(d, limit, w, idx, n);
            } else {
                gathered = null;
            }
        } catch (io.javelin.encoding.kernel.KernelInputException e) {
            throw ctx.corrupt(0, "Dictionary index out of range [0, " + dictItems + "): " + e.getMessage());
        }
        if (gathered != null) {
            vb.append(gathered, 0, n);
            return;
        }
        byte[] d = f.data();
        for (int i = 0; i < n; i++) {
            long ix = 0;
            for (int k = w - 1; k >= 0; k--) {
                ix = (ix << 8) | (d[i * w + k] & 0xFF);
            }
            if (ix < 0 || ix >= limit) {
                throw ctx.corrupt(0, "Dictionary index " + ix + " out of range [0, " + dictItems + ")");
            }
            vb.append(dict, (int) ix, (int) ix + 1);
        }
    }

    /** Gathers variable-width dictionary values: lengths first, then one copy per value into a sized array. */
    private static Values.Var gatherVar(Values.Var d, long limit, int w, java.lang.foreign.MemorySegment idx, int n) {
        long[] dOff = d.offsets();
        byte[] dData = d.data();
        long[] off = new long[n + 1];
        long total = 0;
        for (int i = 0; i < n; i++) {
            long ix = readIndex(idx, i, w);
            if (ix < 0 || ix >= limit) {
                throw new io.javelin.encoding.kernel.KernelInputException("index " + ix, i);
            }
            total += dOff[(int) ix + 1] - dOff[(int) ix];
            off[i + 1] = total;
        }
        byte[] out = new byte[Math.toIntExact(total)];
        int pos = 0;
        for (int i = 0; i < n; i++) {
            int ix = (int) readIndex(idx, i, w);
            int s = (int) dOff[ix];
            int len = (int) (dOff[ix + 1] - s);
            System.arraycopy(dData, s, out, pos, len);
            pos += len;
        }
        return new Values.Var(off, out);
    }

    private static long readIndex(java.lang.foreign.MemorySegment idx, int i, int w) {
        return switch (w) {
            case 1 -> Byte.toUnsignedLong(idx.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i));
            case 2 -> Short.toUnsignedLong(idx.get(Buf.U16, 2L * i));
            case 4 -> Integer.toUnsignedLong(idx.get(Buf.U32, 4L * i));
            default -> idx.get(Buf.U64, 8L * i);
        };
    }

    static long align8(long p) {
        return (p + 7) & ~7L;
    }

    // ---------------------------------------------------------------- full zip

    static LeafPage fullZip(String resource, long at, FullZipLayout fz, List<Buf> bufs, int numRows, LeafKind kind, RepDef rd) {
        return fullZip(resource, at, fz, bufs, numRows, kind, rd, Integer.toUnsignedLong(fz.getNumItems()));
    }

    /** Full-zip decode of {@code numLevels} levels from {@code bufs.get(0)} (a whole page, or selected rows of it). */
    static LeafPage fullZip(String resource, long at, FullZipLayout fz, List<Buf> bufs, int numRows, LeafKind kind, RepDef rd,
                            long numLevels) {
        if (bufs.isEmpty()) {
            throw new CorruptFileException(resource, at, "Full-zip page without a data buffer");
        }
        Buf data = bufs.get(0);
        int bitsRep = fz.getBitsRep();
        int bitsDef = fz.getBitsDef();
        if (bitsRep < 0 || bitsDef < 0 || bitsRep + bitsDef > 32) {
            throw data.corrupt(0, "Impossible control word widths rep=" + bitsRep + " def=" + bitsDef);
        }
        int ctrl = bitsRep + bitsDef;
        int ctrlW = ctrl == 0 ? 0 : ctrl <= 8 ? 1 : ctrl <= 16 ? 2 : 4;
        if (numLevels > Compressions.MAX_VALUES) {
            throw data.corrupt(0, "Impossible full-zip level count " + numLevels);
        }
        short[] rep = bitsRep > 0 ? new short[(int) numLevels] : null;
        short[] def = bitsDef > 0 ? new short[(int) numLevels] : null;
        ValuesBuilder vb = kind.builder().create();
        long defMask = (1L << bitsDef) - 1;
        long pos = 0;
        CompressiveEncoding vc = fz.getValueCompression();
        if (fz.getDetailsCase() == FullZipLayout.DetailsCase.BITS_PER_VALUE) {
            long bpv = fz.getBitsPerValue();
            if (bpv <= 0 || bpv % 8 != 0 || bpv > 8L * (1 << 24)) {
                throw data.corrupt(0, "Impossible full-zip bits per value " + bpv);
            }
            int bytes = (int) (bpv / 8);
            int validityBytes = 0;
            int dim = 1;
            if (vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FIXED_SIZE_LIST) {
                dim = (int) Math.min(Integer.MAX_VALUE, vc.getFixedSizeList().getItemsPerValue());
                if (vc.getFixedSizeList().getHasValidity()) {
                    validityBytes = (dim + 7) / 8;
                }
            } else if (vc.getCompressionCase() != CompressiveEncoding.CompressionCase.FLAT
                    && vc.getCompressionCase() != CompressiveEncoding.CompressionCase.PACKED_STRUCT) {
                throw new UnsupportedEncodingException(resource, at, "Full-zip fixed compression " + vc.getCompressionCase());
            }
            int dataBytes = bytes - validityBytes;
            if (dataBytes < 0 || (!kind.variable() && kind.bitsPerValue() != 1 && dataBytes * 8 != kind.bitsPerValue())) {
                throw data.corrupt(0, "Full-zip value of " + bytes + " bytes vs " + kind.bitsPerValue() + " bits expected");
            }
            if (ctrlW == 0) {
                data.check(0, numLevels * bytes);
            }
            if (validityBytes == 0 && !kind.variable() && kind.bitsPerValue() != 1) {
                Values fast = fullZipFixed(data, ctrlW, bitsDef, defMask, rep, def, rd, (int) numLevels, bytes, kind);
                return new LeafPage(resource, rd, numRows, (int) numLevels, rep, def, fast);
            }
            for (int i = 0; i < numLevels; i++) {
                long cw = ctrlW == 0 ? 0 : data.uint(pos, ctrlW);
                pos += ctrlW;
                int d = (int) (cw & defMask);
                if (rep != null) {
                    rep[i] = (short) (cw >>> bitsDef);
                }
                if (def != null) {
                    def[i] = (short) d;
                }
                if (rd.visible(d)) {
                    if (validityBytes > 0) {
                        byte[] iv = data.bytes(pos, validityBytes);
                        Values one = new Values.Fixed(data.bytes(pos + validityBytes, dataBytes), dataBytes * 8, 1, iv, dim);
                        vb.append(one, 0, 1);
                    } else {
                        vb.append(new Values.Fixed(data.bytes(pos, bytes), bytes * 8, 1), 0, 1);
                    }
                    pos += bytes;
                }
            }
        } else {
            long ob = fz.getBitsPerOffset();
            if (ob != 32 && ob != 64) {
                throw data.corrupt(0, "Impossible full-zip bits per offset " + ob);
            }
            int ow = (int) ob / 8;
            byte[] table = null;
            CompressiveEncoding inner = vc;
            io.javelin.encoding.pb.v21.BufferCompression general = null;
            if (vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FSST) {
                table = vc.getFsst().getSymbolTable().toByteArray();
                inner = vc.getFsst().getValues();
            } else if (vc.getCompressionCase() == CompressiveEncoding.CompressionCase.GENERAL) {
                general = vc.getGeneral().getCompression();
                inner = vc.getGeneral().getValues();
            }
            if (inner.getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE_PACKED_STRUCT) {
                VariablePackedRows.check(resource, at, inner.getVariablePackedStruct()); // rows stay opaque bytes here
            } else if (inner.getCompressionCase() != CompressiveEncoding.CompressionCase.VARIABLE) {
                throw new UnsupportedEncodingException(resource, at, "Full-zip variable compression " + vc.getCompressionCase());
            }
            // one pass: offsets of the visible values and their bytes copied into one array sized by the page
            long[] off = new long[(int) numLevels + 1];
            byte[] out = new byte[(int) Math.min(data.size(), Integer.MAX_VALUE - 16)];
            int count = 0;
            int size = 0;
            java.lang.foreign.MemorySegment seg = data.seg();
            for (int i = 0; i < numLevels; i++) {
                long cw = ctrlW == 0 ? 0 : data.uint(pos, ctrlW);
                pos += ctrlW;
                int d = (int) (cw & defMask);
                if (rep != null) {
                    rep[i] = (short) (cw >>> bitsDef);
                }
                if (def != null) {
                    def[i] = (short) d;
                }
                if (rd.visible(d)) {
                    if (d == 0) {
                        long len = data.uint(pos, ow);
                        pos += ow;
                        if (len < 0 || len > data.size() - pos) {
                            throw data.corrupt(pos - ow, "Value length " + len + " past the page");
                        }
                        if (general != null) {
                            byte[] v = Compressions.decompress(general, data.slice(pos, len)).toArray();
                            if (out.length - size < v.length) {
                                out = java.util.Arrays.copyOf(out, Math.toIntExact(Math.max((long) size + v.length, 2L * out.length)));
                            }
                            System.arraycopy(v, 0, out, size, v.length);
                            size += v.length;
                        } else {
                            java.lang.foreign.MemorySegment.copy(seg, java.lang.foreign.ValueLayout.JAVA_BYTE, pos, out, size, (int) len);
                            size += (int) len;
                        }
                        pos += len;
                    }
                    off[++count] = size;
                }
            }
            Values.Var vals = new Values.Var(count == numLevels ? off : java.util.Arrays.copyOf(off, count + 1),
                    size == out.length ? out : java.util.Arrays.copyOf(out, size));
            if (table != null) {
                vals = Codecs.fsstDecode(Buf.ofArray(resource, at, table), vals);
            }
            vb.append(vals, 0, vals.count());
        }
        return new LeafPage(resource, rd, numRows, (int) numLevels, rep, def, vb.build());
    }

    /** Fixed-width full-zip values without item validity: each visible value copied once into a sized array. */
    private static Values fullZipFixed(Buf data, int ctrlW, int bitsDef, long defMask, short[] rep, short[] def, RepDef rd,
                                       int numLevels, int bytes, LeafKind kind) {
        if (ctrlW == 0) {
            return new Values.Fixed(data.bytes(0, (long) numLevels * bytes), kind.bitsPerValue(), numLevels, null,
                    kind.itemsPerValue());
        }
        java.lang.foreign.MemorySegment seg = data.seg();
        long size = data.size();
        byte[] out = new byte[(int) Math.min((long) numLevels * bytes, Math.min(size, Integer.MAX_VALUE - 16))];
        int count = 0;
        long pos = 0;
        for (int i = 0; i < numLevels; i++) {
            long cw = data.uint(pos, ctrlW);
            pos += ctrlW;
            int d = (int) (cw & defMask);
            if (rep != null) {
                rep[i] = (short) (cw >>> bitsDef);
            }
            if (def != null) {
                def[i] = (short) d;
            }
            if (rd.visible(d)) {
                if (pos > size - bytes) {
                    data.check(pos, bytes);
                }
                java.lang.foreign.MemorySegment.copy(seg, java.lang.foreign.ValueLayout.JAVA_BYTE, pos, out, count * bytes, bytes);
                count++;
                pos += bytes;
            }
        }
        int used = count * bytes;
        return new Values.Fixed(used == out.length ? out : java.util.Arrays.copyOf(out, used), kind.bitsPerValue(), count, null,
                kind.itemsPerValue());
    }

    // ---------------------------------------------------------------- constant / all null

    static LeafPage constant(String resource, long at, ConstantLayout cl, List<Buf> bufs, int numRows, LeafKind kind, RepDef rd) {
        byte[] value = null;
        int levelBuf = 0;
        if (cl.hasInlineValue()) {
            value = cl.getInlineValue().toByteArray();
        } else if (bufs.size() == 1 || bufs.size() == 3) {
            value = scalarValue(bufs.get(0), kind);
            levelBuf = 1;
        }
        short[] rep = null;
        short[] def = null;
        if (bufs.size() >= levelBuf + 2) {
            Buf rb = bufs.get(levelBuf);
            Buf db = bufs.get(levelBuf + 1);
            if (cl.hasRepCompression()) {
                rep = Compressions.levels(cl.getRepCompression(), rb, cl.getNumRepValues());
            } else if (rb.size() > 0) {
                rep = Compressions.rawLevels(rb);
            }
            if (cl.hasDefCompression()) {
                def = Compressions.levels(cl.getDefCompression(), db, cl.getNumDefValues());
            } else if (db.size() > 0) {
                def = Compressions.rawLevels(db);
            }
        }
        int numLevels;
        if (rep != null) {
            numLevels = rep.length;
            if (def != null && def.length != numLevels) {
                throw new CorruptFileException(resource, at, "Constant page: " + rep.length + " rep vs " + def.length + " def levels");
            }
        } else if (def != null) {
            numLevels = def.length;
        } else {
            numLevels = numRows;
            if (value == null) {
                def = new short[numRows];
                Arrays.fill(def, (short) 1);
                if (rd.maxDef < 1) {
                    throw new CorruptFileException(resource, at, "All-null page for a non-nullable leaf");
                }
            }
        }
        int visible = 0;
        for (int i = 0; i < numLevels; i++) {
            if (def == null || rd.visible(Short.toUnsignedInt(def[i]))) {
                visible++;
            }
        }
        ValuesBuilder vb = kind.builder().create();
        if (value == null) {
            vb.appendZeros(visible);
        } else {
            if (!kind.variable() && kind.bitsPerValue() != 1 && value.length * 8 < kind.bitsPerValue()) {
                throw new CorruptFileException(resource, at, "Constant of " + value.length + " bytes for " + kind.bitsPerValue() + " bits");
            }
            vb.appendRepeated(value, visible);
        }
        return new LeafPage(resource, rd, numRows, numLevels, rep, def, vb.build());
    }

    /** The scalar buffer of a constant page: {@code u32 n; u32 len[n]; bytes}, Arrow buffers of a length-1 array. */
    static byte[] scalarValue(Buf b, LeafKind kind) {
        long n = b.u32(0);
        if (n < 1 || n > 16) {
            throw b.corrupt(0, "Constant scalar with " + n + " buffers");
        }
        long pos = 4 + 4 * n;
        long[] lens = new long[(int) n];
        for (int i = 0; i < n; i++) {
            lens[i] = b.u32(4 + 4L * i);
        }
        for (int i = 0; i < n - 1; i++) {
            pos += lens[i];
        }
        return b.bytes(pos, lens[(int) n - 1]);
    }

    /** A growable short array. */
    static final class ShortList {
        short[] a = new short[64];
        int n;

        void addAll(short[] s) {
            if (a.length < n + s.length) {
                a = Arrays.copyOf(a, Math.max(n + s.length, a.length * 2));
            }
            System.arraycopy(s, 0, a, n, s.length);
            n += s.length;
        }

        short[] toArray() {
            return Arrays.copyOf(a, n);
        }
    }
}
