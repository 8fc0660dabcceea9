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

    /**
     * Pages needed for {@code ranges} given the pages decoded so far ({@code loaded} answers null for the
     * others). A field whose pages depend on decoded ones (2.0 list items on their offsets) first names the
     * pages it can, and the rest once those are loaded; the reader asks again until nothing is new.
     */
    default List<PageRef> pagesFor(List<long[]> ranges, Function<PageRef, Object> loaded) {
        return pagesFor(ranges);
    }

    /** Decodes a page of one of this field's columns from its buffers. */
    Object decodePage(PageRef ref, List<Buf> buffers);

    /**
     * As {@link #decodePage(PageRef, List)}; the result may keep the buffers' memory by retaining
     * {@code memory} (then it is {@link AutoCloseable} and releases it on close).
     */
    default Object decodePage(PageRef ref, List<Buf> buffers, io.javelin.encoding.io.SharedMemory memory) {
        return decodePage(ref, buffers);
    }

    /**
     * The vector of {@code ranges} built without copying from decoded pages, or null when that is not
     * possible (then {@link #assemble} is used).
     */
    default org.apache.arrow.vector.FieldVector assembleDirect(List<long[]> ranges, Function<PageRef, Object> pages,
                                                              org.apache.arrow.memory.BufferAllocator allocator) {
        return null;
    }

    /**
     * The vector of a take's {@code ranges} (rows in request order) gathered straight into Arrow buffers from
     * the take's decoded pages, or null when the general path must assemble it.
     */
    default org.apache.arrow.vector.FieldVector assembleTake(List<long[]> ranges, Function<PageRef, Object> pages,
                                                            org.apache.arrow.memory.BufferAllocator allocator) {
        return null;
    }

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
