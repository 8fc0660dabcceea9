package io.javelin.objectstore;

/** A read range that lies (partly) beyond the end of the object (HTTP 416). */
public class InvalidRangeException extends ObjectStoreException {

    public InvalidRangeException(String path, long offset, long length, long size) {
        super("Range [" + offset + ", " + (offset + length) + ") is beyond the end of " + path + " (size " + size + ")",
                416, null, null);
    }
}
