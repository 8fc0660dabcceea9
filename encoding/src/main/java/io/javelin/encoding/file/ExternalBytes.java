package io.javelin.encoding.file;

import io.javelin.encoding.io.Buf;
import java.util.List;

/**
 * A decoded page that still needs bytes stored outside its page buffers (blob payloads). The reader
 * fetches {@link #ranges()} ({@code [offset, length]} pairs) and calls {@link #resolve}.
 */
public interface ExternalBytes {

    List<long[]> ranges();

    /** The decoded page, given the fetched ranges in order. */
    Object resolve(List<Buf> bytes);
}
