package io.javelin.index.fts;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.IndexFileSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import reactor.core.publisher.Mono;

/**
 * One partition of an inverted index as Lance writes it: the token dictionary
 * ({@code part_N_tokens.lance}), the documents ({@code part_N_docs.lance}, doc id = row number)
 * and the posting lists ({@code part_N_invert.lance}, row = token id), read on demand.
 */
public final class DiskPartition implements FtsPartition {

    private final long id;
    private final Map<String, Integer> tokens;
    private final long[] rowIds;
    private final int[] numTokens;
    private final long totalTokens;
    private final IndexFileSource src;
    private final String resource;

    DiskPartition(long id, Map<String, Integer> tokens, long[] rowIds, int[] numTokens, IndexFileSource src, String resource) {
        this.id = id;
        this.tokens = tokens;
        this.rowIds = rowIds;
        this.numTokens = numTokens;
        long t = 0;
        for (int n : numTokens) {
            t += Integer.toUnsignedLong(n);
        }
        this.totalTokens = t;
        this.src = src;
        this.resource = resource;
    }

    public long id() {
        return id;
    }

    public Map<String, Integer> tokens() {
        return tokens;
    }

    @Override
    public int numDocs() {
        return rowIds.length;
    }

    @Override
    public long totalTokens() {
        return totalTokens;
    }

    @Override
    public long rowId(int doc) {
        return rowIds[doc];
    }

    @Override
    public int numTokens(int doc) {
        return numTokens[doc];
    }

    @Override
    public Mono<Map<String, PostingList>> postings(Collection<String> query, boolean withPositions) {
        Map<Integer, String> byId = new java.util.TreeMap<>();
        for (String t : query) {
            Integer tid = tokens.get(t);
            if (tid != null) {
                byId.put(tid, t);
            }
        }
        if (byId.isEmpty()) {
            return Mono.just(Map.of());
        }
        long[] rows = byId.keySet().stream().mapToLong(Integer::longValue).toArray();
        String file = InvertedIndexFiles.invert(id);
        String res = resource + "/" + file;
        List<String> order = new ArrayList<>(byId.values());
        return src.readRows(file, rows)
                .map(batch -> {
                    try (batch) {
                        return decode(batch, withPositions, res);
                    }
                })
                .collectList()
                .map(parts -> {
                    Map<String, PostingList> out = new HashMap<>();
                    int i = 0;
                    for (List<PostingList> p : parts) {
                        for (PostingList pl : p) {
                            CorruptIndexException.check(i < order.size(), res, "more posting rows than requested");
                            out.put(order.get(i++), pl);
                        }
                    }
                    CorruptIndexException.check(i == order.size(), res, "%d posting rows for %d tokens", i, order.size());
                    for (PostingList pl : out.values()) {
                        for (int d : pl.docs()) {
                            CorruptIndexException.check(d < rowIds.length, res, "posting doc %d beyond %d docs", d, rowIds.length);
                        }
                    }
                    return out;
                });
    }

    private static List<PostingList> decode(VectorSchemaRoot b, boolean withPositions, String res) {
        FieldVector p = b.getVector(InvertedIndexFiles.POSTING);
        FieldVector l = b.getVector(InvertedIndexFiles.LENGTH);
        CorruptIndexException.check(p instanceof ListVector lv && lv.getDataVector() instanceof LargeVarBinaryVector, res,
                "%s is not List<LargeBinary>", InvertedIndexFiles.POSTING);
        CorruptIndexException.check(l instanceof UInt4Vector, res, "%s is not UInt32", InvertedIndexFiles.LENGTH);
        ListVector posting = (ListVector) p;
        LargeVarBinaryVector blocks = (LargeVarBinaryVector) posting.getDataVector();
        UInt4Vector lengths = (UInt4Vector) l;
        ListVector positions = null;
        if (withPositions) {
            FieldVector pos = b.getVector(InvertedIndexFiles.POSITION);
            CorruptIndexException.check(pos instanceof ListVector pl && pl.getDataVector() instanceof ListVector inner
                    && inner.getDataVector() instanceof LargeVarBinaryVector, res, "index has no positions (%s)", InvertedIndexFiles.POSITION);
            positions = (ListVector) pos;
        }
        List<PostingList> out = new ArrayList<>(b.getRowCount());
        for (int r = 0; r < b.getRowCount(); r++) {
            CorruptIndexException.check(!posting.isNull(r) && !lengths.isNull(r), res, "null posting row");
            int s = posting.getElementStartIndex(r), e = posting.getElementEndIndex(r);
            List<byte[]> bl = new ArrayList<>(e - s);
            for (int i = s; i < e; i++) {
                CorruptIndexException.check(!blocks.isNull(i), res, "null posting block");
                bl.add(blocks.get(i));
            }
            PostingList pl = PostingCodec.decode(bl, lengths.get(r), res);
            if (positions != null) {
                pl = new PostingList(pl.docs(), pl.freqs(), decodePositions(positions, r, pl, res));
            }
            out.add(pl);
        }
        return out;
    }

    private static int[][] decodePositions(ListVector positions, int r, PostingList pl, String res) {
        ListVector perDoc = (ListVector) positions.getDataVector();
        LargeVarBinaryVector bins = (LargeVarBinaryVector) perDoc.getDataVector();
        int s = positions.getElementStartIndex(r), e = positions.getElementEndIndex(r);
        CorruptIndexException.check(e - s == pl.size(), res, "%d position lists for %d docs", e - s, pl.size());
        int[][] out = new int[pl.size()][];
        for (int d = s; d < e; d++) {
            int ps = perDoc.getElementStartIndex(d), pe = perDoc.getElementEndIndex(d);
            List<byte[]> parts = new ArrayList<>(pe - ps);
            for (int i = ps; i < pe; i++) {
                parts.add(bins.get(i));
            }
            int[] pos = PostingCodec.decodePositions(parts, res);
            CorruptIndexException.check(pos.length == pl.freqs()[d - s], res, "%d positions for frequency %d", pos.length, pl.freqs()[d - s]);
            out[d - s] = pos;
        }
        return out;
    }

    @Override
    public String toString() {
        return "DiskPartition[" + id + ", docs=" + rowIds.length + ", tokens=" + tokens.size() + "]";
    }

    static long[] copy(long[] a) {
        return Arrays.copyOf(a, a.length);
    }
}
