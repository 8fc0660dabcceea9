package io.javelin.index.fts;

/**
 * One token's postings in one partition: ascending doc ids (positions in the partition's docs
 * file) with the token's frequency in each, and optionally its positions in each doc.
 *
 * @param positions per doc, the token's positions (word offsets), or null without positions
 */
public record PostingList(int[] docs, int[] freqs, int[][] positions) {

    public int size() {
        return docs.length;
    }
}
