package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.UUID;

/** Names of tree objects and the path rules every reference must satisfy. */
public final class TreePaths {

    /** Every tree object lives under this prefix of its dataset. */
    public static final String PREFIX = "_bt/";

    private TreePaths() {
    }

    /** {@code _bt/root/{uuid}.root} for a 16-byte root_uuid (display order). */
    public static String rootPath(ByteString rootUuid) {
        check(rootUuid.size() == 16, Rule.R06_ROOT_UUID, "root_uuid has %d bytes, expected 16", rootUuid.size());
        return PREFIX + "root/" + toUuid(rootUuid) + ".root";
    }

    public static UUID toUuid(ByteString bytes) {
        ByteBuffer b = bytes.asReadOnlyByteBuffer();
        return new UUID(b.getLong(), b.getLong());
    }

    public static ByteString toBytes(UUID uuid) {
        ByteBuffer b = ByteBuffer.allocate(16);
        b.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
        return ByteString.copyFrom(b.array());
    }

    public static String nodePath(UUID uuid) {
        return PREFIX + "node/" + uuid + ".node";
    }

    public static String leafPath(UUID uuid) {
        return PREFIX + "leaf/" + uuid + ".lance";
    }

    /**
     * Checks a child reference path: non-empty, relative, normalized and inside {@code _bt/}
     * (so it can never resolve under {@code data/}).
     */
    public static void checkChildPath(String path) {
        check(!path.isEmpty(), Rule.R10_EMPTY_PATH, "child path is empty");
        check(path.startsWith(PREFIX), Rule.R09_PATH, "path %s does not begin with %s", path, PREFIX);
        check(!path.contains("\\") && !path.contains("://"), Rule.R09_PATH, "path %s is not a relative object path", path);
        String rest = path.substring(PREFIX.length());
        check(!rest.isEmpty(), Rule.R09_PATH, "path %s names no object", path);
        for (String segment : rest.split("/", -1)) {
            check(!segment.isEmpty() && !segment.equals(".") && !segment.equals(".."), Rule.R09_PATH,
                    "path %s is not normalized", path);
        }
    }
}
