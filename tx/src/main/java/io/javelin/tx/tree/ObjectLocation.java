package io.javelin.tx.tree;

/**
 * A resolved tree object: the dataset root it belongs to and its path relative to that root.
 * Two references are the same object exactly when their locations are equal.
 *
 * @param dataset the resolved dataset root URI ("" denotes the current dataset)
 * @param path    object path relative to the dataset root, starting with {@code _bt/}
 */
public record ObjectLocation(String dataset, String path) {

    @Override
    public String toString() {
        return dataset.isEmpty() ? path : dataset + "/" + path;
    }
}
