package io.javelin.engine;

import java.nio.ByteBuffer;

/**
 * One whole blob payload of {@link Dataset#readBlobs}: {@code index} is the position of its row in the
 * request, {@code rowAddress} that row's {@code (fragment << 32) | offset}; {@code data} is null for a
 * null blob and a zero-length buffer for an empty one.
 */
public record Blob(int index, long rowAddress, ByteBuffer data) {

    public boolean isNull() {
        return data == null;
    }
}
