package io.javelin.index;

import java.lang.foreign.MemorySegment;
import java.util.Map;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the index module needs from the Lance file reader, for the files of one index segment
 * (names relative to {@code _indices/{uuid}/}). Index files are ordinary Lance v2.0/2.1/2.2 files;
 * zero-row and zero-column files occur. Batches are handed over with the exact column names and
 * Arrow types Lance wrote; the consumer closes every {@code VectorSchemaRoot} it receives.
 * Global buffer indices are the file's own: 0 is the file descriptor, user buffers start at 1
 * (so {@code "lance:ivf" = "1"} means {@code globalBuffer(file, 1)}).
 */
public interface IndexFileSource {

    /** Every row of the file (small files: page_lookup, bitmap lookup, zonemap, auxiliary.idx). */
    Mono<org.apache.arrow.vector.VectorSchemaRoot> readAll(String file);

    /** The given rows (ascending), in one or more batches. */
    Flux<org.apache.arrow.vector.VectorSchemaRoot> readRows(String file, long[] rows);

    /** Rows {@code [start, end)} (a BTree page, an IVF partition). */
    default Flux<org.apache.arrow.vector.VectorSchemaRoot> readRange(String file, long start, long end) {
        long[] rows = new long[(int) (end - start)];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = start + i;
        }
        return readRows(file, rows);
    }

    /** The schema-level metadata (string → string). */
    Mono<Map<String, String>> schemaMetadata(String file);

    /** Global buffer {@code index} (1-based for user buffers), valid until the returned segment's arena closes. */
    Mono<MemorySegment> globalBuffer(String file, int index);
}
