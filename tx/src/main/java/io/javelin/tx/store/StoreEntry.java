package io.javelin.tx.store;

/** One listed object: its path relative to the dataset root and its size in bytes. */
public record StoreEntry(String path, long size) {

    /** The last path segment. */
    public String name() {
        int slash = path.lastIndexOf('/');
        return slash < 0 ? path : path.substring(slash + 1);
    }
}
