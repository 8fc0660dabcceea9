package io.javelin.encoding.file;

import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.io.Buf;
import java.util.List;
import java.util.function.Function;

/**
 * Decodes one top-level field: says which pages a set of row ranges needs, decodes a page from its
 * buffers, and assembles the rows from decoded pages. Synchronous; no I/O.
 */
public interface FieldReader {

    /** Pages needed for the given row ranges ({@code [start, end)} pairs). */
    List<PageRef> pagesFor(List<long[]> ranges);

    /** Decodes a page of one of this field's columns from its buffers. */
    Object decodePage(PageRef ref, List<Buf> buffers);

    /**
     * A minimal-I/O plan to read only {@code rows} (sorted, distinct, page-local) of a page, or null
     * when the page must be read whole.
     */
    default PartialPage partial(PageRef ref, long[] rows) {
        return null;
    }

    /** Assembles the rows of {@code ranges}, in order, from decoded pages. */
    Node assemble(List<long[]> ranges, Function<PageRef, Object> pages);
}
