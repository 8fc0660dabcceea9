package io.javelin.tx.tree;

import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;

/**
 * One change a native transaction makes to the fragment state, as handed to {@link TreeWriter}.
 * The writer lowers edits to the smallest storage actions that reproduce them.
 */
public sealed interface FragmentEdit {

    long id();

    /** A fragment with a freshly allocated id (above the previous max_fragment_id); needs no read. */
    record Create(DataFragment fragment) implements FragmentEdit {
        public long id() {
            return fragment.getId();
        }
    }

    /** The new complete record of an existing fragment; the prior record is resolved and diffed. */
    record Put(DataFragment fragment) implements FragmentEdit {
        public long id() {
            return fragment.getId();
        }
    }

    /** Changes an existing record; the prior record is resolved, transformed and diffed. */
    record Modify(long id, java.util.function.UnaryOperator<DataFragment> change) implements FragmentEdit {
    }

    /** Removes a fragment (its prior record is resolved for exact deltas). */
    record Remove(long id) implements FragmentEdit {
    }

    /** Appends a data file to an existing fragment (count-neutral; needs no read). */
    record AddFile(long id, DataFile file) implements FragmentEdit {
    }

    /**
     * Replaces path, size and base of the first file whose path is {@code expectedPath}, keeping its
     * field mapping and version (count-neutral; needs no read).
     */
    record ReplaceFile(long id, String expectedPath, String path, long fileSizeBytes, Integer baseId)
            implements FragmentEdit {
    }
}
