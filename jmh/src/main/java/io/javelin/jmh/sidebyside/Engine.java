package io.javelin.jmh.sidebyside;

import java.util.List;

/** One engine under test: the operations the side-by-side runner times. */
interface Engine extends AutoCloseable {

    String name();

    /** Writes {@code data} as a new format-2.1 dataset at {@code uri}. */
    void write(String uri, BenchData data) throws Exception;

    /** Opens the dataset to read (kept open across repetitions, as an application would). */
    void open(String uri) throws Exception;

    /** Scans {@code columns} (null = all) with an optional SQL filter; returns rows and Arrow bytes produced. */
    Result scan(List<String> columns, String filter, int batchSize) throws Exception;

    /** Takes the rows at {@code indices} (all columns). */
    default Result take(long[] indices) throws Exception {
        return take(indices, SideBySide.ALL_COLUMNS);
    }

    /** Takes the rows at {@code indices}, only {@code columns}. */
    Result take(long[] indices, List<String> columns) throws Exception;

    /** Appends {@code data} to the dataset at {@code uri} as one commit (format 2.1). */
    void append(String uri, BenchData data) throws Exception;

    /** Rows and Arrow bytes an operation produced. */
    record Result(long rows, long bytes) {
    }
}
