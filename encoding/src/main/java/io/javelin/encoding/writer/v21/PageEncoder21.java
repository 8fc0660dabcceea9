package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.ConstantLayout;
import io.javelin.encoding.pb.v21.FullZipLayout;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import io.javelin.encoding.pb.v21.PageLayout;
import io.javelin.encoding.pb.v21.RepDefLayer;
import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.EncodedPage;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceWriteException;
import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.LeafValues;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Chooses the structural layout of a 2.1/2.2 page and serializes it (file-format.md §6-§8, §10.2). */
final class PageEncoder21 {
    static final String STRUCTURAL_ENCODING = "lance-encoding:structural-encoding";
    private static final byte FILL = (byte) 0xFE;

    private PageEncoder21() {
    }

    static EncodedPage encode(PageInput in, LanceFileVersion version, Map<String, String> meta, boolean utf8) {
        if (in.numValues() == 0) {
            return complexAllNull(in);
        }
        if (in.allNull()) {
            return in.simpleValidity() && in.rep() == null ? simpleAllNull(in) : complexAllNull(in);
        }
        ValueChooser21.Params params = ValueChooser21.Params.of(meta);
        MiniBlockValues dict = in.values().type().packed() != null ? null
                : ValueChooser21.dictionary(in.values(), version, params);
        if (dict != null) {
            return miniBlock(in, version, dict);
        }
        // lance-core 7.0.0 ignores the structural-encoding metadata of list items (observed: a forced
        // full-zip list item under a nullable struct is written as mini-block); so do we.
        String structural = in.maxRep() > 0 ? null : meta.get(STRUCTURAL_ENCODING);
        boolean mini;
        if (structural != null) {
            mini = structural.equalsIgnoreCase("miniblock");
            if (!mini && !structural.equalsIgnoreCase("fullzip")) {
                throw new LanceWriteException("Invalid value of " + STRUCTURAL_ENCODING + ": " + structural
                        + " (expected miniblock or fullzip)");
            }
        } else {
            mini = maxValueBytes(in.values()) < 256;
        }
        if (in.values().type().packed() != null) {
            mini = true;
        }
        if (mini) {
            return miniBlock(in, version, ValueChooser21.miniBlock(in.values(), version, params, utf8));
        }
        VarData var = null;
        if (in.values().type().kind() == LeafType.Kind.VARIABLE) {
            var = ValueChooser21.perValue(VarData.of(in.values()), in.values().maxLen(), params, utf8);
        }
        return FullZip.encode(in, var);
    }

    static long maxValueBytes(LeafValues v) {
        LeafType t = v.type();
        return switch (t.kind()) {
            case BOOL -> 0;
            case FIXED, FSL -> t.valueBytes();
            case VARIABLE -> v.maxLen();
        };
    }

    private static EncodedPage simpleAllNull(PageInput in) {
        PageLayout layout = PageLayout.newBuilder().setConstantLayout(ConstantLayout.newBuilder()
                .addLayers(RepDefLayer.REPDEF_NULLABLE_ITEM)).build();
        return new EncodedPage(List.of(), layout, in.numRows(), in.firstRow());
    }

    private static EncodedPage complexAllNull(PageInput in) {
        Bytes rep = new Bytes(in.rep() == null ? 16 : in.numLevels() * 2);
        if (in.rep() != null) {
            for (int i = 0; i < in.numLevels(); i++) {
                rep.u16(in.rep()[i]);
            }
        }
        Bytes def = new Bytes(in.def() == null ? 16 : in.numLevels() * 2);
        if (in.def() != null) {
            for (int i = 0; i < in.numLevels(); i++) {
                def.u16(in.def()[i]);
            }
        }
        PageLayout layout = PageLayout.newBuilder().setConstantLayout(ConstantLayout.newBuilder()
                .addAllLayers(in.layers())).build();
        return new EncodedPage(List.of(rep, def), layout, in.numRows(), in.firstRow());
    }

    // ------------------------------------------------------------------ mini-block

    private static EncodedPage miniBlock(PageInput in, LanceFileVersion version, MiniBlockValues mv) {
        boolean large = version == LanceFileVersion.V2_2;
        List<Chunk> chunks = mv.chunks();
        int nChunks = chunks.size();
        // Slice levels per chunk (trailing invisible levels go to the next chunk, as RepDefSlicer does).
        int[] levelStart = new int[nChunks + 1];
        boolean hasLevels = in.rep() != null || in.def() != null;
        if (hasLevels) {
            int pos = 0;
            boolean lists = in.maxVisibleDef() != Integer.MAX_VALUE;
            for (int c = 0; c < nChunks; c++) {
                levelStart[c] = pos;
                if (c == nChunks - 1) {
                    pos = in.numLevels();
                } else if (!lists || in.def() == null) {
                    pos += chunks.get(c).numValues();
                } else {
                    int taken = 0;
                    int need = chunks.get(c).numValues();
                    while (taken < need) {
                        if ((in.def()[pos] & 0xFFFF) <= in.maxVisibleDef()) {
                            taken++;
                        }
                        pos++;
                    }
                }
            }
            levelStart[nChunks] = in.numLevels();
        }
        LevelCodec repCodec = in.rep() == null ? null : LevelCodec.choose(in.rep(), in.numLevels(), version);
        LevelCodec defCodec = in.def() == null ? null : LevelCodec.choose(in.def(), in.numLevels(), version);

        Bytes meta0 = new Bytes(nChunks * (large ? 4 : 2));
        Bytes data = new Bytes(1 << 12);
        Bytes repIndex = in.rep() != null ? new Bytes(nChunks * 16) : null;
        int numBuffers = chunks.get(0).buffers().length;
        long[] ri = in.rep() != null ? new long[nChunks * 2] : null;
        for (int c = 0; c < nChunks; c++) {
            Chunk ch = chunks.get(c);
            int start = data.size();
            int ls = levelStart[c];
            int le = levelStart[c + 1];
            int nl = hasLevels ? le - ls : 0;
            byte[] repBytes = repCodec == null ? null : repCodec.encode(in.rep(), ls, nl);
            byte[] defBytes = defCodec == null ? null : defCodec.encode(in.def(), ls, nl);
            if (nl > 0xFFFF && !large) {
                throw new LanceWriteException("Mini-block chunk has " + nl + " levels, more than a 2.1 chunk can hold");
            }
            data.u16(nl & 0xFFFF);
            if (repBytes != null) {
                data.u16(checkU16(repBytes.length));
            }
            if (defBytes != null) {
                data.u16(checkU16(defBytes.length));
            }
            for (byte[] b : ch.buffers()) {
                if (large) {
                    data.u32(b.length);
                } else {
                    data.u16(checkU16(b.length));
                }
            }
            data.padTo(8, FILL);
            if (repBytes != null) {
                data.put(repBytes).padTo(8, FILL);
            }
            if (defBytes != null) {
                data.put(defBytes).padTo(8, FILL);
            }
            for (byte[] b : ch.buffers()) {
                data.put(b).padTo(8, FILL);
            }
            long chunkBytes = data.size() - start;
            if (!large && chunkBytes > 32 * 1024) {
                throw new LanceWriteException("Mini-block chunk of " + chunkBytes + " bytes exceeds the 2.1 limit of 32 KiB");
            }
            long word = ((chunkBytes / 8 - 1) << 4) | ch.log();
            if (large) {
                meta0.u32(word);
            } else {
                meta0.u16((int) word);
            }
            if (ri != null) {
                repIndexEntry(in, ri, c, nChunks, ls, le);
            }
        }
        List<Bytes> buffers = new ArrayList<>(4);
        buffers.add(meta0);
        buffers.add(data);
        MiniBlockLayout.Builder mb = MiniBlockLayout.newBuilder()
                .setValueCompression(mv.encoding())
                .addAllLayers(in.layers())
                .setNumBuffers(numBuffers)
                .setNumItems(in.numValues());
        if (large) {
            mb.setHasLargeChunk(true);
        }
        if (repCodec != null) {
            mb.setRepCompression(repCodec.encoding());
        }
        if (defCodec != null) {
            mb.setDefCompression(defCodec.encoding());
        }
        if (mv.dict() != null) {
            buffers.add(mv.dict().buffer());
            mb.setDictionary(mv.dict().encoding()).setNumDictionaryItems(mv.dict().items());
        }
        if (ri != null) {
            for (long x : ri) {
                repIndex.u64(x);
            }
            buffers.add(repIndex);
            mb.setRepetitionIndexDepth(1);
        }
        PageLayout layout = PageLayout.newBuilder().setMiniBlockLayout(mb).build();
        return new EncodedPage(buffers, layout, in.numRows(), in.firstRow());
    }

    private static int checkU16(int n) {
        if (n > 0xFFFF) {
            throw new LanceWriteException("Mini-block buffer of " + n + " bytes does not fit a u16 size");
        }
        return n;
    }

    /** Lance's repetition index: rows completed in the chunk and leftover levels of a trailing partial row. */
    private static void repIndexEntry(PageInput in, long[] ri, int c, int nChunks, int ls, int le) {
        short[] rep = in.rep();
        int maxRep = in.maxRep();
        long rows = 0;
        for (int i = ls + 1; i < le; i++) {
            if ((rep[i] & 0xFFFF) == maxRep) {
                rows++;
            }
        }
        long leftovers;
        if (c < nChunks - 1) {
            int pos = -1;
            for (int i = le - 1; i >= ls; i--) {
                if ((rep[i] & 0xFFFF) == maxRep) {
                    pos = le - 1 - i;
                    break;
                }
            }
            leftovers = pos >= 0 ? pos + 1 : le - ls;
        } else {
            leftovers = 0;
        }
        if (c != 0 && le > ls && (rep[ls] & 0xFFFF) == maxRep) {
            if (ri[2 * (c - 1) + 1] != 0) {
                ri[2 * (c - 1)] += 1;
                ri[2 * (c - 1) + 1] = 0;
            }
        }
        if (c == nChunks - 1) {
            rows++;
        }
        ri[2 * c] = rows;
        ri[2 * c + 1] = leftovers;
    }

    static List<RepDefLayer> layers(PageInput in) {
        return in.layers();
    }

    static CompressiveEncoding unused() {
        return null;
    }
}
