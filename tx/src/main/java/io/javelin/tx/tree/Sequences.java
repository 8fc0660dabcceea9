package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Sequence numbers decoded by one operation; every one must be nonzero and unique. */
final class Sequences {

    private final Set<Long> base;
    private final Set<Long> seen = ConcurrentHashMap.newKeySet();

    Sequences(Set<Long> base) {
        this.base = base;
    }

    void add(long sequence) {
        check(sequence != 0, Rule.R47_SEQUENCE, "mutation sequence 0");
        check(!base.contains(sequence) && seen.add(sequence), Rule.R47_SEQUENCE,
                "mutation sequence %d appears twice", sequence);
    }
}
