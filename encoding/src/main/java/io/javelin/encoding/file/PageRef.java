package io.javelin.encoding.file;

/** One page of one column. */
public record PageRef(int column, int page) {
}
