package io.javelin.index.fts;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * Documents analysed in memory: the rows of fragments an index does not cover yet (searched
 * exactly, with their statistics added to the index's, as Lance's flat search does), or the input
 * of an index build. Rows with no token (null, empty, only stop words) are not documents.
 */
public final class MemoryPartition implements FtsPartition {

    private final long[] rowIds;
    private final int[] numTokens;
    private final long totalTokens;
    private final Map<String, PostingList> postings;
    private final boolean unindexed;

    private final int emptyRows;
    private List<String> order = List.of();

    private MemoryPartition(long[] rowIds, int[] numTokens, long totalTokens, Map<String, PostingList> postings, boolean unindexed,
                            int emptyRows) {
        this.emptyRows = emptyRows;
        this.unindexed = unindexed;
        this.rowIds = rowIds;
        this.numTokens = numTokens;
        this.totalTokens = totalTokens;
        this.postings = postings;
    }

    /** Builder adding documents in row order. */
    public static final class Builder {
        private final TextAnalyzer analyzer;
        private final boolean positions;
        private long[] rows = new long[64];
        private int[] lengths = new int[64];
        private int n;
        private long total;
        private int empty;
        private final Map<String, Acc> acc = new HashMap<>();

        public Builder(TextAnalyzer analyzer, boolean positions) {
            this.analyzer = analyzer;
            this.positions = positions;
        }

        /** Adds one row's text (null is skipped). */
        public Builder add(long rowId, String text) {
            if (text == null) {
                empty++;
                return this;
            }
            List<TextAnalyzer.Token> ts = analyzer.tokens(text);
            if (ts.isEmpty()) {
                empty++;
                return this;
            }
            if (n == rows.length) {
                rows = java.util.Arrays.copyOf(rows, n * 2);
                lengths = java.util.Arrays.copyOf(lengths, n * 2);
            }
            int doc = n++;
            rows[doc] = rowId;
            lengths[doc] = ts.size();
            total += ts.size();
            for (TextAnalyzer.Token t : ts) {
                acc.computeIfAbsent(t.text(), k -> new Acc()).add(doc, t.position(), positions);
            }
            return this;
        }

        /** Token texts in order of first appearance (the id order Lance's builder gives). */
        public List<String> tokensInOrder() {
            return acc.entrySet().stream().sorted(java.util.Comparator.comparingInt(e -> e.getValue().seq))
                    .map(Map.Entry::getKey).toList();
        }

        /** The documents as rows an index does not cover (flat-scored against the index's statistics). */
        public MemoryPartition buildUnindexed() {
            MemoryPartition m = build();
            return new MemoryPartition(m.rowIds, m.numTokens, m.totalTokens, m.postings, true, empty);
        }

        public MemoryPartition build() {
            Map<String, PostingList> p = new HashMap<>(acc.size() * 2);
            acc.forEach((k, a) -> p.put(k, a.toList()));
            MemoryPartition m = new MemoryPartition(java.util.Arrays.copyOf(rows, n), java.util.Arrays.copyOf(lengths, n), total, p, false, empty);
            m.order = tokensInOrder();
            return m;
        }

        private int seqCounter;

        private final class Acc {
            final int seq = seqCounter++;
            int firstDoc = -1;
            int[] docs = new int[4];
            int[] freqs = new int[4];
            int[][] pos = positions ? new int[4][] : null;
            int size;

            void add(int doc, int position, boolean withPos) {
                if (firstDoc < 0) {
                    firstDoc = doc;
                }
                if (size > 0 && docs[size - 1] == doc) {
                    freqs[size - 1]++;
                    if (withPos) {
                        int[] p = pos[size - 1];
                        p = java.util.Arrays.copyOf(p, p.length + 1);
                        p[p.length - 1] = position;
                        pos[size - 1] = p;
                    }
                    return;
                }
                if (size == docs.length) {
                    docs = java.util.Arrays.copyOf(docs, size * 2);
                    freqs = java.util.Arrays.copyOf(freqs, size * 2);
                    if (withPos) {
                        pos = java.util.Arrays.copyOf(pos, size * 2);
                    }
                }
                docs[size] = doc;
                freqs[size] = 1;
                if (withPos) {
                    pos[size] = new int[] {position};
                }
                size++;
            }

            PostingList toList() {
                return new PostingList(java.util.Arrays.copyOf(docs, size), java.util.Arrays.copyOf(freqs, size),
                        pos == null ? null : java.util.Arrays.copyOf(pos, size));
            }
        }
    }

    /** Rows added without a token (null, empty, only stop words): not documents, but counted by Lance's flat statistics. */
    public int emptyRows() {
        return emptyRows;
    }

    /** Whether these rows are outside an index (see {@link FtsSearcher}). */
    public boolean unindexed() {
        return unindexed;
    }

    /** Token texts in order of first appearance (token ids of a written index). */
    public List<String> tokensInOrder() {
        return order;
    }

    /** All postings (for writing an index). */
    public Map<String, PostingList> allPostings() {
        return postings;
    }

    public long[] rowIds() {
        return rowIds;
    }

    public int[] lengths() {
        return numTokens;
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
    public Mono<Map<String, PostingList>> postings(Collection<String> tokens, boolean withPositions) {
        Map<String, PostingList> out = new HashMap<>();
        for (String t : tokens) {
            PostingList p = postings.get(t);
            if (p != null) {
                out.put(t, p);
            }
        }
        return Mono.just(out);
    }
}
