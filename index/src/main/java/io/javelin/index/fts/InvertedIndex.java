package io.javelin.index.fts;

import java.util.List;

/**
 * An opened inverted-index segment: its tokenizer parameters and partitions (dictionaries and
 * document tables in memory; posting lists are read per query token).
 */
public record InvertedIndex(FtsParams params, List<DiskPartition> partitions, String resource) {

    public InvertedIndex {
        partitions = List.copyOf(partitions);
    }

    public long numDocs() {
        return partitions.stream().mapToLong(DiskPartition::numDocs).sum();
    }
}
