package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.file.PartialPage;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.v21.FullZipLayout;
import io.javelin.encoding.pb.v21.MiniBlockLayout;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/** Minimal-I/O plans for takes: only the mini-block chunks, or full-zip rows, that hold the rows. */
final class PartialPlans {

    private PartialPlans() {
    }

    /** Mini-block page without repetition: one level per row, chunk i holds rows [Σ values before i, +values_i). */
    static PartialPage miniBlock(String resource, long at, MiniBlockLayout mb, ColumnMetadata.Page page, long[] rows, LeafKind kind,
                                 RepDef rd) {
        boolean dict = mb.hasDictionary();
        long dataPos = page.getBufferOffsets(1);
        long dataSize = page.getBufferSizes(1);
        List<long[]> first = new ArrayList<>();
        first.add(new long[] {page.getBufferOffsets(0), page.getBufferSizes(0)});
        if (dict) {
            if (page.getBufferOffsetsCount() < 3) {
                throw new CorruptFileException(resource, at, "Mini-block dictionary page without a dictionary buffer");
            }
            first.add(new long[] {page.getBufferOffsets(2), page.getBufferSizes(2)});
        }
        return new PartialPage() {
            List<Integer> chosen;
            long[] rowIds;

            @Override
            public List<long[]> firstReads() {
                return first;
            }

            @Override
            public List<long[]> secondReads(List<Buf> firstBufs) {
                StructuralPages.ChunkTable t = StructuralPages.chunkTable(mb, firstBufs.get(0), dataSize);
                chosen = new ArrayList<>();
                List<long[]> reads = new ArrayList<>();
                long[] ids = new long[64];
                int nIds = 0;
                long chunkFirst = 0;
                int k = 0;
                for (int c = 0; c < t.size(); c++) {
                    long chunkEnd = chunkFirst + t.values()[c];
                    while (k < rows.length && rows[k] < chunkFirst) {
                        k++;
                    }
                    if (k < rows.length && rows[k] < chunkEnd) {
                        chosen.add(c);
                        reads.add(new long[] {dataPos + t.offset()[c], t.bytes()[c]});
                        int add = (int) (chunkEnd - chunkFirst);
                        if (ids.length < nIds + add) {
                            ids = java.util.Arrays.copyOf(ids, Math.max(nIds + add, ids.length * 2));
                        }
                        for (long r = chunkFirst; r < chunkEnd; r++) {
                            ids[nIds++] = r;
                        }
                    }
                    chunkFirst = chunkEnd;
                }
                rowIds = java.util.Arrays.copyOf(ids, nIds);
                return reads;
            }

            @Override
            public Object decode(List<Buf> firstBufs, List<Buf> second) {
                StructuralPages.ChunkTable t = StructuralPages.chunkTable(mb, firstBufs.get(0), dataSize);
                Values dictionary = dict ? StructuralPages.dictionary(mb, firstBufs.get(1)) : null;
                List<Long> counts = new ArrayList<>();
                for (int c : chosen) {
                    counts.add(t.values()[c]);
                }
                LeafPage lp = StructuralPages.decodeChunks(resource, mb, second, counts, dictionary, rowIds.length, kind, rd);
                return new StructuralFieldReader.SparseRows(rowIds, lp);
            }
        };
    }

    /** Full-zip page without repetition: one level per row; rows located by stride or repetition index. */
    static PartialPage fullZip(String resource, long at, FullZipLayout fz, ColumnMetadata.Page page, long[] rows, LeafKind kind,
                               RepDef rd) {
        long dataPos = page.getBufferOffsets(0);
        long dataSize = page.getBufferSizes(0);
        int ctrl = fz.getBitsRep() + fz.getBitsDef();
        int ctrlW = ctrl == 0 ? 0 : ctrl <= 8 ? 1 : ctrl <= 16 ? 2 : 4;
        boolean hasIndex = page.getBufferOffsetsCount() >= 2;
        boolean fixed = fz.getDetailsCase() == FullZipLayout.DetailsCase.BITS_PER_VALUE;
        if (!hasIndex && !fixed) {
            return null;
        }
        List<long[]> first = hasIndex ? List.of(new long[] {page.getBufferOffsets(1), page.getBufferSizes(1)}) : List.of();
        long numRows = page.getLength();
        return new PartialPage() {
            @Override
            public List<long[]> firstReads() {
                return first;
            }

            @Override
            public List<long[]> secondReads(List<Buf> firstBufs) {
                List<long[]> reads = new ArrayList<>();
                for (long r : rows) {
                    long s;
                    long e;
                    if (hasIndex) {
                        Buf idx = firstBufs.get(0);
                        long w = idx.size() / (numRows + 1);
                        if (w != 1 && w != 2 && w != 4 && w != 8) {
                            throw idx.corrupt(0, "Repetition index of " + idx.size() + " bytes for " + numRows + " rows");
                        }
                        s = idx.uint(r * w, (int) w);
                        e = idx.uint((r + 1) * w, (int) w);
                    } else {
                        long stride = ctrlW + fz.getBitsPerValue() / 8;
                        s = r * stride;
                        e = s + stride;
                    }
                    if (s < 0 || e < s || e > dataSize) {
                        throw new CorruptFileException(resource, dataPos, "Full-zip row " + r + " at [" + s + ", " + e
                                + ") outside the page data of " + dataSize + " bytes");
                    }
                    if (!reads.isEmpty() && reads.get(reads.size() - 1)[0] + reads.get(reads.size() - 1)[1] == dataPos + s) {
                        reads.get(reads.size() - 1)[1] += e - s;
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
                byte[] joined = new byte[Math.toIntExact(total)];
                int pos = 0;
                for (Buf b : second) {
                    MemorySegment.copy(b.seg(), 0, MemorySegment.ofArray(joined), pos, b.size());
                    pos += (int) b.size();
                }
                Buf data = Buf.ofArray(resource, dataPos, joined);
                LeafPage lp = StructuralPages.fullZip(resource, at, fz, List.of(data), rows.length, kind, rd, rows.length);
                return new StructuralFieldReader.SparseRows(rows.clone(), lp);
            }
        };
    }
}
