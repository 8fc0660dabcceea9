package io.javelin.index;

import java.nio.ByteBuffer;
import java.util.UUID;

/** Where a segment's files live: {@code _indices/{uuid}/}, the uuid hyphenated lower-case. */
public final class IndexFiles {

    public static final String INDICES_DIR = "_indices";

    private IndexFiles() {
    }

    /** {@code _indices/{uuid}/} relative to the dataset (or to {@code base_paths[base_id]}). */
    public static String directory(UUID uuid) {
        return INDICES_DIR + "/" + uuid + "/";
    }

    public static String path(UUID uuid, String file) {
        return directory(uuid) + file;
    }

    /** The manifest's {@code UUID.uuid} field: 16 raw bytes, most significant first. */
    public static UUID uuidFromBytes(byte[] raw, String resource) {
        CorruptIndexException.check(raw != null && raw.length == 16, resource, "index uuid must be 16 bytes, got %d",
                raw == null ? -1 : raw.length);
        ByteBuffer b = ByteBuffer.wrap(raw);
        return new UUID(b.getLong(), b.getLong());
    }

    public static byte[] uuidToBytes(UUID uuid) {
        return ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits()).array();
    }

    /** A distributed-build part file name: {@code part_{fragmask}_{name}} with {@code fragmask = first_frag << 32}. */
    public static String partFile(long firstFragmentId, String name) {
        return "part_" + Long.toUnsignedString(firstFragmentId << 32) + "_" + name;
    }
}
