package io.javelin.index.fts;

import java.util.List;

/**
 * Phrase check on positions: the i-th query token must occur at a position at least its query
 * offset after a surviving position of token i-1 and at most {@code slop} further (Lance's rule,
 * applied token by token from the first).
 */
final class PhraseMatcher {

    private PhraseMatcher() {
    }

    static boolean matches(PostingList[] lists, List<String> distinct, FtsSearcher.Query q, int doc) {
        int[] qpos = q.phrase().queryPositions();
        int slop = q.phrase().slop();
        // the phrase's start (its first query position, a dropped stop word included) must lie in the document
        int[] candidates = java.util.Arrays.stream(positions(lists[distinct.indexOf(q.tokens().get(0))], doc))
                .filter(p -> p >= qpos[0]).toArray();
        for (int i = 1; i < q.tokens().size() && candidates.length > 0; i++) {
            int delta = qpos[i] - qpos[i - 1];
            if (delta < 0) {
                return false;
            }
            int[] pos = positions(lists[distinct.indexOf(q.tokens().get(i))], doc);
            int[] next = new int[pos.length];
            int k = 0;
            for (int p : pos) {
                for (int c : candidates) {
                    long least = (long) c + delta;
                    if (least <= p && p <= least + slop) {
                        next[k++] = p;
                        break;
                    }
                }
            }
            candidates = java.util.Arrays.copyOf(next, k);
        }
        return candidates.length > 0;
    }

    private static int[] positions(PostingList pl, int doc) {
        int i = java.util.Arrays.binarySearch(pl.docs(), doc);
        if (i < 0 || pl.positions() == null) {
            return new int[0];
        }
        return pl.positions()[i];
    }
}
