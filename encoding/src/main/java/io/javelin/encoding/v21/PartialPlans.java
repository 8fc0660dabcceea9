package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.file.PartialPage;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.v21.FullZipLayout;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * Minimal-I/O plans for takes: only the mini-block chunks, or full-zip rows, that hold the rows.
 *
 * <p>Pages with repetition (lists) are located through their repetition index. A mini-block row may
 * span chunks: it is read from the chunk where it starts up to the first following chunk that ends on a
 * row boundary (no trailer), and the levels before the first row start (the preamble, the tail of an
 * earlier row) are dropped. A full-zip row is the byte range between two entries of its repetition index.
 */
final class PartialPlans {

    private PartialPlans() {
    }

    /** Full-zip repetition indexes up to this size are read whole (and cached); larger ones entry by entry. */
    static final long WHOLE_INDEX_BYTES = 64 * 1024;

    /**
     * Pages of at most this many bytes are read whole in the first round (batched with the other pages' chunk
     * tables and cached with them): one round instead of two, and no I/O when taken again.
     */
    static final long SMALL_PAGE_BYTES = 4096;

    static long pageBytes(ColumnMetadata.Page page) {
        long n = 0;
        for (int b = 0; b < page.getBufferSizesCount(); b++) {
            n += page.getBufferSizes(b);
        }
        return n;
    }

    /**
     * A page read whole in the first round and decoded by {@code decode} (constant and all-null pages: nothing
     * to narrow); its buffers are cached with the other first rounds.
     */
    static PartialPage whole(ColumnMetadata.Page page, java.util.function.Function<List<Buf>, Object> decode) {
        List<long[]> first = new ArrayList<>();
        for (int b = 0; b < page.getBufferOffsetsCount() && b < page.getBufferSizesCount(); b++) {
            first.add(new long[] {page.getBufferOffsets(b), page.getBufferSizes(b)});
        }
        return new PartialPage() {
            @Override
            public List<long[]> firstReads() {
                return first;
            }

            @Override
            public List<long[]> secondReads(List<Buf> firstBufs) {
                return List.of();
            }

            @Override
            public Object decode(List<Buf> firstBufs, List<Buf> second) {
                return decode.apply(firstBufs);
            }
        };
    }

    /** A run of consecutive chunks decoded together: rows {@code [firstRow, firstRow + rows)} start in it. */
    private record Run(int firstChunk, int lastChunk, long firstRow, long rows) {
    }

    // ---------------------------------------------------------------- mini-block

    /**
     * Mini-block page. Without repetition chunk i holds rows [Σ values before i, +values_i); with repetition
     * the repetition index (last buffer) says how many rows start in each chunk and whether its last row
     * continues into the next chunk.
     */
    /** What a take needs of a mini-block page's first round, parsed once per page and kept by the field reader. */
    record PageIndex(StructuralPages.ChunkTable table, long[] firstRow, boolean[] trailer) {
    }

    static PartialPage miniBlock(String resource, long at, MiniBlockLayout mb, ColumnMetadata.Page page, long[] rows, LeafKind kind,
                                 RepDef rd) {
        return miniBlock(resource, at, mb, page, rows, kind, rd, null, 0);
    }

    /** {@code indexes} (may be null) keeps the page's parsed {@link PageIndex} under {@code key} across takes. */
    static PartialPage miniBlock(String resource, long at, MiniBlockLayout mb, ColumnMetadata.Page page, long[] rows, LeafKind kind,
                                 RepDef rd, PageIndexes indexes, long key) {
        boolean dict = mb.hasDictionary();
        boolean rep = mb.hasRepCompression();
        int nBufs = page.getBufferOffsetsCount();
        if (nBufs < 2 || page.getBufferSizesCount() != nBufs) {
            throw new CorruptFileException(resource, at, "Mini-block page with " + nBufs + " buffers");
        }
        long dataPos = page.getBufferOffsets(1);
        long dataSize = page.getBufferSizes(1);
        long numRows = page.getLength();
        List<long[]> first = new ArrayList<>();
        first.add(new long[] {page.getBufferOffsets(0), page.getBufferSizes(0)});
        int dictAt = -1;
        if (dict) {
            if (nBufs < 3) {
                throw new CorruptFileException(resource, at, "Mini-block dictionary page without a dictionary buffer");
            }
            dictAt = first.size();
            first.add(new long[] {page.getBufferOffsets(2), page.getBufferSizes(2)});
        }
        int repAt = -1;
        long depth = mb.getRepetitionIndexDepth();
        if (rep) {
            if (depth <= 0 || nBufs < (dict ? 4 : 3)) {
                return null; // no repetition index: the page is read whole
            }
            if (depth > 64) {
                throw new CorruptFileException(resource, at, "Impossible repetition index depth " + depth);
            }
            repAt = first.size();
            first.add(new long[] {page.getBufferOffsets(nBufs - 1), page.getBufferSizes(nBufs - 1)});
        }
        // a small page's chunks come with its first round (one round, cached with it) instead of a second round
        int inlineAt = -1;
        if (pageBytes(page) <= SMALL_PAGE_BYTES) {
            inlineAt = first.size();
            first.add(new long[] {dataPos, dataSize});
        }
        int dictIndex = dictAt;
        int repIndex = repAt;
        int dataIndex = inlineAt;
        return new PartialPage() {
            List<Run> runs;
            StructuralPages.ChunkTable table;

            @Override
            public List<long[]> firstReads() {
                return first;
            }

            @Override
            public List<long[]> secondReads(List<Buf> firstBufs) {
                PageIndex pi = indexes == null ? null : indexes.get(key);
                if (pi == null) {
                    StructuralPages.ChunkTable t = StructuralPages.chunkTable(mb, firstBufs.get(0), dataSize);
                    long[] starts = repIndex < 0 ? t.values() : rowStarts(resource, firstBufs.get(repIndex), t.size(), depth, numRows);
                    boolean[] trailer = repIndex < 0 ? new boolean[t.size()] : trailers(firstBufs.get(repIndex), t.size(), depth);
                    if (repIndex < 0 && sum(starts) != numRows) {
                        throw new CorruptFileException(resource, at, "Mini-block chunks hold " + sum(starts) + " rows vs " + numRows);
                    }
                    long[] firstRow = new long[starts.length + 1];
                    for (int c = 0; c < starts.length; c++) {
                        firstRow[c + 1] = firstRow[c] + starts[c];
                    }
                    pi = new PageIndex(t, firstRow, trailer);
                    if (indexes != null) {
                        indexes.put(key, pi);
                    }
                }
                StructuralPages.ChunkTable t = pi.table();
                table = t;
                runs = runsFrom(resource, at, pi.firstRow(), pi.trailer(), rows);
                if (dataIndex >= 0) {
                    return List.of();
                }
                List<long[]> reads = new ArrayList<>();
                for (Run r : runs) {
                    long from = t.offset()[r.firstChunk()];
                    long to = t.offset()[r.lastChunk()] + t.bytes()[r.lastChunk()];
                    reads.add(new long[] {dataPos + from, to - from});
                }
                return reads;
            }

            /** The bytes of run k: its second-round read, or its slice of the page data read in the first round. */
            private Buf runBytes(List<Buf> firstBufs, List<Buf> second, StructuralPages.ChunkTable t, Run r, int k) {
                if (dataIndex < 0) {
                    return second.get(k);
                }
                long from = t.offset()[r.firstChunk()];
                long to = t.offset()[r.lastChunk()] + t.bytes()[r.lastChunk()];
                return firstBufs.get(dataIndex).slice(from, to - from);
            }

            @Override
            public Object decode(List<Buf> firstBufs, List<Buf> second) {
                StructuralPages.ChunkTable t = table != null ? table : StructuralPages.chunkTable(mb, firstBufs.get(0), dataSize);
                Values dictionary = dict ? StructuralPages.dictionary(mb, firstBufs.get(dictIndex)) : null;
                if (repIndex < 0 && TakeDecode.supports(mb, kind)) {
                    // one level per row: only the taken rows are decoded
                    int nc = 0;
                    for (Run r : runs) {
                        nc += r.lastChunk() - r.firstChunk() + 1;
                    }
                    List<Buf> chunks = new ArrayList<>(nc);
                    long[] counts = new long[nc];
                    long[] firstRows = new long[nc];
                    int k = 0;
                    for (int ri = 0; ri < runs.size(); ri++) {
                        Run r = runs.get(ri);
                        Buf bytes = runBytes(firstBufs, second, t, r, ri);
                        long base = t.offset()[r.firstChunk()];
                        long row = r.firstRow();
                        for (int c = r.firstChunk(); c <= r.lastChunk(); c++, k++) {
                            chunks.add(bytes.slice(t.offset()[c] - base, t.bytes()[c]));
                            counts[k] = t.values()[c];
                            firstRows[k] = row;
                            row += t.values()[c];
                        }
                    }
                    return new StructuralFieldReader.SparseRows(rows.clone(),
                            TakeDecode.pick(resource, at, mb, chunks, counts, firstRows, dictionary, rows, kind, rd));
                }
                List<LeafPage> parts = new ArrayList<>();
                long total = 0;
                List<Buf> chunks = new ArrayList<>();
                List<Long> counts = new ArrayList<>();
                for (int k = 0; k < runs.size(); k++) {
                    Run r = runs.get(k);
                    Buf bytes = runBytes(firstBufs, second, t, r, k);
                    long base = t.offset()[r.firstChunk()];
                    for (int c = r.firstChunk(); c <= r.lastChunk(); c++) {
                        chunks.add(bytes.slice(t.offset()[c] - base, t.bytes()[c]));
                        counts.add(t.values()[c]);
                    }
                    total += r.rows();
                    if (repIndex >= 0) {
                        // each run decoded apart: its preamble (an earlier row's tail) is dropped in join()
                        parts.add(StructuralPages.decodeChunks(resource, mb, chunks, counts, dictionary, Math.toIntExact(r.rows()),
                                kind, rd));
                        chunks = new ArrayList<>();
                        counts = new ArrayList<>();
                    }
                }
                if (repIndex < 0) {
                    // without repetition runs have no preambles: all chunks decode as one page
                    parts.add(StructuralPages.decodeChunks(resource, mb, chunks, counts, dictionary, Math.toIntExact(total), kind, rd));
                }
                long[] rowIds = new long[Math.toIntExact(total)];
                int n = 0;
                for (Run r : runs) {
                    for (long i = 0; i < r.rows(); i++) {
                        rowIds[n++] = r.firstRow() + i;
                    }
                }
                return new StructuralFieldReader.SparseRows(rowIds, join(resource, rd, kind, parts));
            }
        };
    }

    /** Rows starting in each chunk, from the repetition index: {@code ends + trailer - previous trailer}. */
    static long[] rowStarts(String resource, Buf idx, int nChunks, long depth, long numRows) {
        long stride = (depth + 1) * 8;
        if (idx.size() != nChunks * stride) {
            throw idx.corrupt(0, "Repetition index of " + idx.size() + " bytes for " + nChunks + " chunks of depth " + depth);
        }
        long[] starts = new long[nChunks];
        boolean prevTrailer = false;
        long total = 0;
        for (int c = 0; c < nChunks; c++) {
            long ends = idx.u64(c * stride);
            long partial = idx.u64(c * stride + 8);
            boolean trailer = partial != 0;
            if (ends < 0 || partial < 0 || ends > numRows) {
                throw idx.corrupt(c * stride, "Repetition index entry (" + ends + ", " + partial + ") of chunk " + c);
            }
            starts[c] = ends + (trailer ? 1 : 0) - (prevTrailer ? 1 : 0);
            if (starts[c] < 0 || (prevTrailer && ends == 0 && !trailer)) {
                throw idx.corrupt(c * stride, "Chunk " + c + " ends no row but continues none");
            }
            total += starts[c];
            prevTrailer = trailer;
        }
        if (prevTrailer) {
            throw idx.corrupt((nChunks - 1) * stride, "The last chunk of a page continues into no chunk");
        }
        if (total != numRows) {
            throw idx.corrupt(0, "Repetition index counts " + total + " rows vs " + numRows + " in the page");
        }
        return starts;
    }

    private static boolean[] trailers(Buf idx, int nChunks, long depth) {
        long stride = (depth + 1) * 8;
        boolean[] out = new boolean[nChunks];
        for (int c = 0; c < nChunks; c++) {
            out[c] = idx.u64(c * stride + 8) != 0;
        }
        return out;
    }

    private static long sum(long[] a) {
        long s = 0;
        for (long v : a) {
            s += v;
        }
        return s;
    }

    /**
     * The chunk runs holding {@code rows} (sorted, distinct): each row's chunk, extended over the chunks its
     * tail continues into; overlapping or touching runs merged.
     */
    static List<Run> runs(String resource, long at, long[] starts, boolean[] trailer, long[] rows) {
        int n = starts.length;
        long[] firstRow = new long[n + 1];
        for (int c = 0; c < n; c++) {
            firstRow[c + 1] = firstRow[c] + starts[c];
        }
        return runsFrom(resource, at, firstRow, trailer, rows);
    }

    /** {@link #runs} from the chunks' first rows ({@code firstRow[c]}, {@code n + 1} entries). */
    static List<Run> runsFrom(String resource, long at, long[] firstRow, boolean[] trailer, long[] rows) {
        int n = firstRow.length - 1;
        List<Run> out = new ArrayList<>();
        int c = 0;
        int lastEnd = -1; // last chunk of the previous run
        int runFirst = -1;
        for (long r : rows) {
            if (r < 0 || r >= firstRow[n]) {
                throw new CorruptFileException(resource, at, "Row " + r + " outside a page of " + firstRow[n] + " rows");
            }
            if (firstRow[c + 1] <= r) {
                // the chunk holding r: the last chunk starting at or before it (rows are ascending, so search ahead of c)
                int i = java.util.Arrays.binarySearch(firstRow, c + 1, n + 1, r);
                c = i >= 0 ? i : -i - 2;
                while (c < n - 1 && firstRow[c + 1] <= r) {
                    c++; // chunks without rows start where the next one does
                }
            }
            if (c <= lastEnd) {
                continue; // already in the current run
            }
            int end = c;
            while (trailer[end]) {
                end++; // rows checked: the last chunk has no trailer
            }
            if (runFirst >= 0 && c == lastEnd + 1) {
                lastEnd = end; // touching: extend
                continue;
            }
            if (runFirst >= 0) {
                out.add(new Run(runFirst, lastEnd, firstRow[runFirst], firstRow[lastEnd + 1] - firstRow[runFirst]));
            }
            runFirst = c;
            lastEnd = end;
        }
        if (runFirst >= 0) {
            out.add(new Run(runFirst, lastEnd, firstRow[runFirst], firstRow[lastEnd + 1] - firstRow[runFirst]));
        }
        return out;
    }

    /** One leaf page of several runs, each without the levels before its first row start (its preamble). */
    static LeafPage join(String resource, RepDef rd, LeafKind kind, List<LeafPage> parts) {
        if (parts.size() == 1 && parts.get(0).levelStart(0) == 0) {
            return parts.get(0);
        }
        int rows = 0;
        int levels = 0;
        boolean hasRep = false;
        boolean hasDef = false;
        for (LeafPage p : parts) {
            rows += p.numRows;
            levels += p.numLevels - p.levelStart(0);
            hasRep |= p.rep != null;
            hasDef |= p.def != null;
        }
        short[] rep = hasRep ? new short[levels] : null;
        short[] def = hasDef ? new short[levels] : null;
        ValuesBuilder vb = kind.builder().create();
        int at = 0;
        for (LeafPage p : parts) {
            int l0 = p.levelStart(0);
            int len = p.numLevels - l0;
            if (rep != null) {
                if (p.rep == null) {
                    throw new CorruptFileException(resource, -1, "Chunks of one page with and without repetition levels");
                }
                System.arraycopy(p.rep, l0, rep, at, len);
            }
            if (def != null && p.def != null) {
                System.arraycopy(p.def, l0, def, at, len);
            }
            vb.append(p.values, p.visibleBefore(l0), p.values.count());
            at += len;
        }
        return new LeafPage(resource, rd, rows, levels, rep, def, vb.build());
    }

    // ---------------------------------------------------------------- full zip

    /**
     * Full-zip page: rows located by stride (fixed width, no repetition) or by the repetition index
     * ({@code numRows + 1} byte offsets of 1, 2, 4 or 8 bytes each). A small index is read whole, a
     * large one only at the entries of the rows.
     */
    static PartialPage fullZip(String resource, long at, FullZipLayout fz, ColumnMetadata.Page page, long[] rows, LeafKind kind,
                               RepDef rd) {
        long dataPos = page.getBufferOffsets(0);
        long dataSize = page.getBufferSizes(0);
        int bitsRep = fz.getBitsRep();
        int bitsDef = fz.getBitsDef();
        if (bitsRep < 0 || bitsDef < 0 || bitsRep + bitsDef > 32) {
            throw new CorruptFileException(resource, at, "Impossible control word widths rep=" + bitsRep + " def=" + bitsDef);
        }
        int ctrl = bitsRep + bitsDef;
        int ctrlW = ctrl == 0 ? 0 : ctrl <= 8 ? 1 : ctrl <= 16 ? 2 : 4;
        boolean hasIndex = page.getBufferOffsetsCount() >= 2 && page.getBufferSizesCount() >= 2;
        boolean fixed = fz.getDetailsCase() == FullZipLayout.DetailsCase.BITS_PER_VALUE;
        if (!hasIndex && (!fixed || bitsRep > 0)) {
            return null;
        }
        long numRows = page.getLength();
        long idxPos = hasIndex ? page.getBufferOffsets(1) : 0;
        long idxSize = hasIndex ? page.getBufferSizes(1) : 0;
        long w = hasIndex ? idxSize / (numRows + 1) : 0;
        if (hasIndex && (w != 1 && w != 2 && w != 4 && w != 8 || w * (numRows + 1) != idxSize)) {
            throw new CorruptFileException(resource, idxPos, "Repetition index of " + idxSize + " bytes for " + numRows + " rows");
        }
        boolean wholeIndex = hasIndex && idxSize <= WHOLE_INDEX_BYTES;
        // first round: the whole index, or the entries [r, r+1] of each row (consecutive rows share reads)
        List<long[]> first = new ArrayList<>();
        long[] entryAt = new long[rows.length]; // index of the read holding entry rows[i], and its position in it
        int[] entryRead = new int[rows.length];
        if (wholeIndex) {
            first.add(new long[] {idxPos, idxSize});
            for (int i = 0; i < rows.length; i++) {
                entryAt[i] = rows[i] * w;
            }
        } else if (hasIndex) {
            for (int i = 0; i < rows.length; i++) {
                long r = rows[i];
                if (r < 0 || r >= numRows) {
                    throw new CorruptFileException(resource, at, "Row " + r + " outside a page of " + numRows + " rows");
                }
                long[] last = first.isEmpty() ? null : first.get(first.size() - 1);
                if (last != null && last[0] + last[1] >= idxPos + r * w) {
                    last[1] = idxPos + (r + 2) * w - last[0];
                } else {
                    first.add(new long[] {idxPos + r * w, 2 * w});
                }
                entryRead[i] = first.size() - 1;
                entryAt[i] = idxPos + r * w - first.get(first.size() - 1)[0];
            }
        }
        return new PartialPage() {
            @Override
            public List<long[]> firstReads() {
                return first;
            }

            @Override
            public List<long[]> secondReads(List<Buf> firstBufs) {
                List<long[]> reads = new ArrayList<>();
                for (int i = 0; i < rows.length; i++) {
                    long r = rows[i];
                    if (r < 0 || r >= numRows) {
                        throw new CorruptFileException(resource, at, "Row " + r + " outside a page of " + numRows + " rows");
                    }
                    long s;
                    long e;
                    if (hasIndex) {
                        Buf idx = firstBufs.get(entryRead[i]);
                        s = idx.uint(entryAt[i], (int) w);
                        e = idx.uint(entryAt[i] + w, (int) w);
                    } else {
                        long stride = ctrlW + fz.getBitsPerValue() / 8;
                        s = r * stride;
                        e = s + stride;
                    }
                    if (s < 0 || e < s || e > dataSize) {
                        throw new CorruptFileException(resource, dataPos, "Full-zip row " + r + " at [" + s + ", " + e
                                + ") outside the page data of " + dataSize + " bytes");
                    }
                    long[] last = reads.isEmpty() ? null : reads.get(reads.size() - 1);
                    if (last != null && last[0] + last[1] == dataPos + s) {
                        last[1] += e - s;
                    } else {
                        reads.add(new long[] {dataPos + s, e - s});
                    }
                }
                return reads;
            }

            @Override
            public Object decode(List<Buf> firstBufs, List<Buf> second) {
                long total = 0;
                for (Buf b : second) {
                    total += b.size();
                }
                if (total > Integer.MAX_VALUE - 16) {
                    throw new CorruptFileException(resource, dataPos, "Full-zip take of " + total + " bytes");
                }
                byte[] joined = new byte[(int) total];
                int pos = 0;
                for (Buf b : second) {
                    MemorySegment.copy(b.seg(), 0, MemorySegment.ofArray(joined), pos, b.size());
                    pos += (int) b.size();
                }
                Buf data = Buf.ofArray(resource, dataPos, joined);
                long levels = bitsRep == 0 ? rows.length : countLevels(data, fz, ctrlW, rd);
                LeafPage lp = StructuralPages.fullZip(resource, at, fz, List.of(data), rows.length, kind, rd, levels);
                return new StructuralFieldReader.SparseRows(rows.clone(), lp);
            }
        };
    }

    /** Levels (control words) in zipped bytes: each visible level carries a value, a variable one a length first. */
    static long countLevels(Buf data, FullZipLayout fz, int ctrlW, RepDef rd) {
        long defMask = (1L << fz.getBitsDef()) - 1;
        boolean fixed = fz.getDetailsCase() == FullZipLayout.DetailsCase.BITS_PER_VALUE;
        long bytes = fixed ? fz.getBitsPerValue() / 8 : 0;
        int ow = fixed ? 0 : (int) (fz.getBitsPerOffset() / 8);
        if (fixed ? bytes <= 0 : ow != 4 && ow != 8) {
            throw data.corrupt(0, "Impossible full-zip value width");
        }
        long size = data.size();
        long pos = 0;
        long n = 0;
        while (pos < size) {
            long cw = data.uint(pos, ctrlW);
            pos += ctrlW;
            int d = (int) (cw & defMask);
            if (rd.visible(d)) {
                if (fixed) {
                    pos += bytes;
                } else if (d == 0) {
                    long len = data.uint(pos, ow);
                    if (len < 0 || len > size - pos - ow) {
                        throw data.corrupt(pos, "Value length " + len + " past the taken rows");
                    }
                    pos += ow + len;
                }
            }
            if (++n > Compressions.MAX_VALUES) {
                throw data.corrupt(pos, "Too many levels in the taken rows");
            }
        }
        if (pos != size) {
            throw data.corrupt(size, "Taken rows end inside a value");
        }
        return n;
    }
}
