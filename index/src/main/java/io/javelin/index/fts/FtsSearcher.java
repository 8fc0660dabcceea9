package io.javelin.index.fts;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.LongPredicate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Exhaustive BM25 over a set of partitions (index partitions plus unindexed documents): the
 * statistics ({@code N}, {@code avgdl}, each token's document frequency) are summed over all of
 * them, every candidate is scored, and the best {@code limit} are kept (score descending, row id
 * ascending). Exhaustive scoring returns what Lance's block-max WAND returns, without relying on
 * stored block maxima. A match-query token given twice counts once, a phrase token once per occurrence, as in Lance 7.
 */
public final class FtsSearcher {

    private FtsSearcher() {
    }

    /** A query over one column's partitions. */
    public record Query(List<String> tokens, boolean and, Phrase phrase) {
        public Query {
            tokens = List.copyOf(tokens);
        }

        public static Query match(List<String> tokens, boolean and) {
            return new Query(tokens, and, null);
        }
    }

    /** Phrase constraint: token {@code i} must follow token {@code i-1} at its query position delta, within {@code slop}. */
    public record Phrase(int[] queryPositions, int slop) {
    }

    /** Rows of fragments the index does not cover: scored the way Lance 7's flat search scores them. */
    private static boolean flat(FtsPartition p) {
        return p instanceof MemoryPartition m && m.unindexed();
    }

    /**
     * lance-core 7.0.0's flat BM25 for unindexed rows: its in-memory scorer takes the index's
     * statistics plus the unindexed rows' ({@code N} counting rows without tokens too, total tokens,
     * document frequencies).
     */
    private static void flatScores(FtsPartition part, PostingList[] lists, int[] mult, float[] flatIdf, Bm25 bm25, float[] scores, int[] hits) {
        for (int t = 0; t < lists.length; t++) {
            PostingList pl = lists[t];
            if (pl == null) {
                continue;
            }
            for (int i = 0; i < pl.size(); i++) {
                int d = pl.docs()[i];
                scores[d] += mult[t] * bm25.weight(flatIdf[t], pl.freqs()[i], part.numTokens(d));
                hits[d]++;
            }
        }
    }

    /**
     * @param excluded rows never returned (deleted, filtered out); they still count in the statistics
     * @param limit    at most this many rows; negative for all
     */
    public static Mono<List<ScoredRow>> search(List<? extends FtsPartition> parts, Query q, int limit, LongPredicate excluded) {
        if (q.tokens().isEmpty() || limit == 0) {
            return Mono.just(List.of());
        }
        List<String> distinct = new ArrayList<>(new LinkedHashSet<>(q.tokens()));
        boolean positions = q.phrase() != null;
        return Flux.fromIterable(parts)
                .concatMap(p -> p.postings(distinct, positions))
                .collectList()
                .map(postings -> score(parts, postings, q, distinct, limit, excluded));
    }

    private static List<ScoredRow> score(List<? extends FtsPartition> parts, List<Map<String, PostingList>> postings, Query q,
                                         List<String> distinct, int limit, LongPredicate excluded) {
        long n = 0, total = 0, nAll = 0, totalAll = 0;
        for (FtsPartition p : parts) {
            nAll += p.numDocs() + (p instanceof MemoryPartition m ? m.emptyRows() : 0);
            totalAll += p.totalTokens();
            if (flat(p)) {
                continue;
            }
            n += p.numDocs();
            total += p.totalTokens();
        }
        Bm25 bm25 = Bm25.of(n, total);
        Bm25 flatBm25 = Bm25.of(nAll, totalAll);
        float[] idf = new float[distinct.size()];
        int[] mult = new int[distinct.size()];
        float[] flatIdf = new float[distinct.size()];
        int required = 0; // AND: the query tokens the index knows (Lance ignores the others)
        for (int t = 0; t < distinct.size(); t++) {
            long df = 0, dfAll = 0;
            for (int pi = 0; pi < postings.size(); pi++) {
                PostingList pl = postings.get(pi).get(distinct.get(t));
                int size = pl == null ? 0 : pl.size();
                dfAll += size;
                df += flat(parts.get(pi)) ? 0 : size;
            }
            idf[t] = bm25.idf(df);
            if (df > 0) {
                required++;
            }
            flatIdf[t] = flatBm25.idf(dfAll);
            // match queries count a repeated token once, phrases once per occurrence (as Lance 7)
            for (String tok : q.tokens()) {
                mult[t] += tok.equals(distinct.get(t)) ? 1 : 0;
            }
            if (q.phrase() == null) {
                mult[t] = 1;
            }
        }
        PriorityQueue<ScoredRow> top = new PriorityQueue<>((a, b) -> ScoredRow.compare(b, a));
        List<ScoredRow> all = limit < 0 ? new ArrayList<>() : null;
        for (int pi = 0; pi < parts.size(); pi++) {
            FtsPartition part = parts.get(pi);
            Map<String, PostingList> m = postings.get(pi);
            PostingList[] lists = new PostingList[distinct.size()];
            boolean missing = false;
            for (int t = 0; t < lists.length; t++) {
                lists[t] = m.get(distinct.get(t));
                missing |= lists[t] == null;
            }
            boolean isFlat = flat(part);
            // Lance 7's flat search of unindexed rows ignores the operator (OR); phrases need every token
            boolean conj = q.phrase() != null || q.and() && !isFlat;
            int need = q.phrase() != null ? lists.length : required;
            if (q.phrase() != null && missing) {
                continue;
            }
            float[] scores = new float[part.numDocs()];
            int[] hits = new int[part.numDocs()];
            if (flat(part)) {
                flatScores(part, lists, mult, flatIdf, flatBm25, scores, hits);
            }
            for (int t = 0; t < lists.length && !flat(part); t++) {
                PostingList pl = lists[t];
                if (pl == null) {
                    continue;
                }
                for (int i = 0; i < pl.size(); i++) {
                    int d = pl.docs()[i];
                    scores[d] += mult[t] * bm25.weight(idf[t], pl.freqs()[i], part.numTokens(d));
                    hits[d]++;
                }
            }
            for (int d = 0; d < scores.length; d++) {
                if (hits[d] == 0 || conj && hits[d] < need) {
                    continue;
                }
                long row = part.rowId(d);
                if (excluded != null && excluded.test(row)) {
                    continue;
                }
                if (q.phrase() != null && !PhraseMatcher.matches(lists, distinct, q, d)) {
                    continue;
                }
                ScoredRow r = new ScoredRow(row, scores[d]);
                if (all != null) {
                    all.add(r);
                } else if (top.size() < limit) {
                    top.add(r);
                } else if (ScoredRow.compare(r, top.peek()) < 0) {
                    top.poll();
                    top.add(r);
                }
            }
        }
        List<ScoredRow> out = all != null ? all : new ArrayList<>(top);
        out.sort(ScoredRow::compare);
        return out;
    }
}
