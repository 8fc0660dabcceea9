package io.javelin.objectstore;

/** Operation classes: each has its own throttle limiter and its own counters. */
public enum OpClass {
    /** get, ranged get, head. */
    READ,
    /** put, multipart parts and completion, copy. */
    WRITE,
    /** list pages. */
    LIST,
    /** delete, bulk delete. */
    DELETE;

    public String label() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
