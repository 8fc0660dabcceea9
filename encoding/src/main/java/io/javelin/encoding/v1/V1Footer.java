package io.javelin.encoding.v1;

import io.javelin.encoding.CorruptFileException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The 16-byte footer of a legacy (format 0.1 / 0.2) Lance file: {@code metadata_position u64, major u16,
 * minor u16, "LANC"}. Version and magic sit at the same distance from the end as in a v2 footer, so the
 * last 8 bytes tell the two apart.
 */
public record V1Footer(long metadataPosition, int major, int minor) {

    public static final int LENGTH = 16;
    static final int MAGIC = 0x434E414C; // "LANC" little-endian

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** True when {@code tail} (the last bytes of a file) ends with a legacy footer: magic and version 0.0-0.2. */
    public static boolean isLegacy(MemorySegment tail) {
        long n = tail.byteSize();
        if (n < LENGTH || tail.get(U32, n - 4) != MAGIC) {
            return false;
        }
        int major = Short.toUnsignedInt(tail.get(U16, n - 8));
        int minor = Short.toUnsignedInt(tail.get(U16, n - 6));
        return major == 0 && minor < 3;
    }

    /** Parses the footer at the end of {@code tail}, which ends at {@code fileSize}. */
    public static V1Footer parse(String resource, MemorySegment tail, long fileSize) {
        long n = tail.byteSize();
        if (n < LENGTH || fileSize < LENGTH) {
            throw new CorruptFileException(resource, 0, "File too small for a legacy Lance footer: " + fileSize + " bytes");
        }
        long pos = tail.get(U64, n - LENGTH);
        int major = Short.toUnsignedInt(tail.get(U16, n - 8));
        int minor = Short.toUnsignedInt(tail.get(U16, n - 6));
        // the metadata is a u32 length prefix and a protobuf before the footer
        if (pos < 0 || pos > fileSize - LENGTH - 4) {
            throw new CorruptFileException(resource, fileSize - LENGTH, "Legacy metadata position " + pos
                    + " outside the file of " + fileSize + " bytes");
        }
        return new V1Footer(pos, major, minor);
    }

    public String label() {
        return major + "." + minor;
    }
}
