package io.javelin.tx.deletion;

import io.javelin.tx.CorruptFileException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.roaringbitmap.RoaringBitmap;

/**
 * The {@code .bin} deletion file: a RoaringBitmap in the portable serialization (roaring-rs
 * {@code serialize_into}). Lance never writes run containers (cookie {@code 0x303A}), so we remove run
 * compression before serializing: a range-add silently creates run containers in RoaringBitmap Java.
 */
public final class BitmapDeletionCodec {

    private BitmapDeletionCodec() {
    }

    public static RoaringBitmap read(String path, byte[] bytes) {
        RoaringBitmap rb = new RoaringBitmap();
        try {
            rb.deserialize(ByteBuffer.wrap(bytes)); // does not advance the buffer: compare sizes instead
            int used = rb.serializedSizeInBytes();
            if (used != bytes.length) {
                throw new CorruptFileException(path, "Trailing " + (bytes.length - used) + " bytes after the Roaring bitmap");
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof CorruptFileException c) {
                throw c;
            }
            throw new CorruptFileException(path, "Invalid Roaring bitmap deletion file: " + e, e);
        }
        return rb;
    }

    public static byte[] write(RoaringBitmap rows) {
        RoaringBitmap copy = rows.clone();
        copy.removeRunCompression();
        ByteBuffer out = ByteBuffer.allocate(copy.serializedSizeInBytes());
        copy.serialize(out);
        return out.array();
    }
}
