package io.javelin.index.fts;

import java.util.Collection;
import java.util.Map;
import reactor.core.publisher.Mono;

/**
 * One searchable set of documents with its own doc ids: a partition of an inverted index on
 * disk, or the analysed documents of fragments the index does not cover yet. BM25 statistics are
 * summed over every partition of a query, so scores do not depend on how documents are split.
 */
public interface FtsPartition {

    int numDocs();

    long totalTokens();

    /** The row id (or row address) of doc {@code doc}. */
    long rowId(int doc);

    /** Token count of doc {@code doc} (the BM25 document length). */
    int numTokens(int doc);

    /** Postings of those of {@code tokens} the partition holds (absent tokens are left out). */
    Mono<Map<String, PostingList>> postings(Collection<String> tokens, boolean withPositions);
}
