package io.javelin.encoding.writer;

import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;

/** The per-version column encoders of one file: batches in, pages out. */
public interface ColumnWriters {
    int numColumns();

    /** Encodes the rows of a batch; returns the pages that became full. */
    List<EncodedPage> append(VectorSchemaRoot batch);

    /** Flushes every column's remaining rows. */
    List<EncodedPage> finish();

    /** Column index of each page returned by the last call (parallel list). */
    List<Integer> lastColumns();
}
