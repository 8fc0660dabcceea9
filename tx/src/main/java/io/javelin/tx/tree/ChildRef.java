package io.javelin.tx.tree;

import io.javelin.tx.pb.FragmentTreeChild;

/**
 * A validated child reference with its resolved dataset and inherited range
 * {@code [lo, hi)} (hi is at most 2^32).
 */
record ChildRef(FragmentTreeChild child, Datasets.Owner owner, long lo, long hi) {

    boolean isLeaf() {
        return child.getHeight() == 0;
    }

    boolean contains(long id) {
        return id >= lo && id < hi;
    }

    ObjectLocation location() {
        return new ObjectLocation(owner.root(), child.getPath());
    }
}
