package io.javelin.objectstore.io;

import io.javelin.objectstore.ByteRange;
import java.util.List;

/**
 * Ranges of one object wanted together, with a priority: lower is more urgent (scan order, e.g.
 * {@code fragment << 32 | row}).
 */
public record PageRequest(String path, List<ByteRange> ranges, long priority) {

    public PageRequest {
        ranges = List.copyOf(ranges);
    }
}
