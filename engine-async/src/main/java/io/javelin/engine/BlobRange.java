package io.javelin.engine;

import java.nio.ByteBuffer;

/** One request of {@link Dataset#readBlobRanges}: bytes {@code [offset, offset + length)} of the blob at row position {@code row}. */
public record BlobRange(long row, long offset, long length) {

    public BlobRange {
        if (offset < 0 || length < 0 || offset > Long.MAX_VALUE - length) {
            throw new IllegalArgumentException("Invalid blob range offset " + offset + " length " + length);
        }
    }

    /** The answer to request {@code requestIndex}: null {@code data} for a null blob. */
    public record Result(int requestIndex, long rowAddress, ByteBuffer data) {
    }
}
