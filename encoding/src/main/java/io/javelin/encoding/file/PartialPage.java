package io.javelin.encoding.file;

import io.javelin.encoding.io.Buf;
import java.util.List;

/**
 * A plan to read only some rows of a page with minimal I/O, in two rounds: small index buffers
 * first (chunk metadata, dictionary, repetition index), then just the chunks or rows needed.
 */
public interface PartialPage {

    /** {@code [offset, length]} ranges of the first round (may be empty). */
    List<long[]> firstReads();

    /** {@code [offset, length]} ranges of the second round, from the first round's bytes. */
    List<long[]> secondReads(List<Buf> first);

    /** The decoded page; only the planned rows may be asked of it. */
    Object decode(List<Buf> first, List<Buf> second);
}
