package io.javelin.encoding.v1;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.io.ByteRange;
import io.javelin.encoding.io.RandomAccessSource;
import java.io.EOFException;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import reactor.core.publisher.Mono;

/**
 * Byte access for the legacy decoders: bounds-checked ranged reads copied out of the source's buffers;
 * with the page table and the values of dictionary fields (by field id), loaded at open.
 */
record V1Pages(String resource, RandomAccessSource source, long fileSize, V1PageTable pageTable,
               java.util.Map<Integer, Piece.Binary> dictionaries) {

    /** The bytes {@code [offset, offset + length)}; a range outside the file is a {@link CorruptFileException}. */
    Mono<byte[]> bytes(long offset, long length) {
        if (offset < 0 || length < 0 || offset > fileSize || length > fileSize - offset) {
            return Mono.error(new CorruptFileException(resource, offset, "Legacy page range [" + offset + ", +" + length
                    + ") outside the file of " + fileSize + " bytes"));
        }
        if (length > Integer.MAX_VALUE - 16) {
            return Mono.error(new io.javelin.encoding.UnsupportedEncodingException(resource, offset,
                    "Legacy page range of " + length + " bytes is larger than one batch can hold"));
        }
        if (length == 0) {
            return Mono.just(new byte[0]);
        }
        return source.read(offset, length)
                .map(V1Pages::copy)
                .onErrorMap(EOFException.class, e -> new CorruptFileException(resource, offset, "Unexpected end of file: "
                        + e.getMessage(), e))
                .doOnDiscard(ByteRange.class, ByteRange::close);
    }

    private static byte[] copy(ByteRange r) {
        try (r) {
            return r.segment().toArray(ValueLayout.JAVA_BYTE);
        }
    }

    /** {@code count} little-endian integers of {@code width} (4 or 8) bytes at {@code offset}, widened to long. */
    Mono<long[]> ints(long offset, long count, int width) {
        return bytes(offset, count * width).map(b -> {
            ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
            long[] out = new long[(int) count];
            for (int i = 0; i < out.length; i++) {
                out[i] = width == 8 ? buf.getLong(i * 8) : buf.getInt(i * 4);
            }
            return out;
        });
    }

    /** Checks that {@code v} ascends from a non-negative start (offsets and positions of a page). */
    long[] ascending(long[] v, long at, String what) {
        for (int i = 0; i < v.length; i++) {
            if (v[i] < 0 || (i > 0 && v[i] < v[i - 1])) {
                throw new CorruptFileException(resource, at, "Legacy " + what + " not ascending at " + i + ": " + v[i]);
            }
        }
        return v;
    }

    CorruptFileException corrupt(long at, String message) {
        return new CorruptFileException(resource, at, message);
    }
}
