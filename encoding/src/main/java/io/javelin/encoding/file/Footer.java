package io.javelin.encoding.file;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** The 40-byte footer at the end of every Lance v2 file. */
public record Footer(long columnMetaStart, long cmoTableStart, long gboTableStart, int numGlobalBuffers,
                     int numColumns, int major, int minor, LanceFileVersion version) {

    public static final int LENGTH = 40;
    public static final int MAGIC = 0x434E414C; // "LANC" little-endian

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * Parses the footer from the last 40 bytes of {@code tail}, which ends at {@code fileSize}, and checks
     * every position against the file size.
     */
    public static Footer parse(String resource, MemorySegment tail, long fileSize) {
        if (fileSize < LENGTH || tail.byteSize() < LENGTH) {
            throw new CorruptFileException(resource, 0, "File too small for a Lance footer: " + fileSize + " bytes");
        }
        long base = tail.byteSize() - LENGTH;
        long footerPos = fileSize - LENGTH;
        int magic = tail.get(U32, base + 36);
        if (magic != MAGIC) {
            throw new CorruptFileException(resource, fileSize - 4,
                    String.format("Bad magic: 0x%08x vs expected 0x%08x (\"LANC\")", magic, MAGIC));
        }
        int major = Short.toUnsignedInt(tail.get(U16, base + 32));
        int minor = Short.toUnsignedInt(tail.get(U16, base + 34));
        LanceFileVersion version = LanceFileVersion.fromFooter(major, minor);
        if (version == null) {
            throw new UnsupportedEncodingException(resource, footerPos + 32,
                    "Unsupported Lance file version " + major + "." + minor
                            + ((major == 0 && minor < 3) ? " (legacy v1 file: read by io.javelin.encoding.v1.V1FileReader)"
                            : (major == 2 && minor == 3) ? " (sparse page layout, not implemented yet)" : ""));
        }
        long cms = tail.get(U64, base);
        long cmo = tail.get(U64, base + 8);
        long gbo = tail.get(U64, base + 16);
        long ngb = Integer.toUnsignedLong(tail.get(U32, base + 24));
        long ncol = Integer.toUnsignedLong(tail.get(U32, base + 28));
        check(resource, footerPos, cms >= 0 && cms <= footerPos, "column_meta_start " + cms + " outside the file");
        check(resource, footerPos + 8, cmo >= 0 && cmo <= footerPos && cmo + 16 * ncol <= footerPos,
                "column metadata offset table [" + cmo + ", +" + 16 * ncol + ") outside the file");
        check(resource, footerPos + 16, gbo >= 0 && gbo <= footerPos && gbo + 16 * ngb <= footerPos,
                "global buffer offset table [" + gbo + ", +" + 16 * ngb + ") outside the file");
        check(resource, footerPos + 24, ngb >= 1, "no global buffers: schema expected");
        check(resource, footerPos + 8, cms <= cmo, "column_meta_start " + cms + " after the offset table " + cmo);
        return new Footer(cms, cmo, gbo, (int) ngb, (int) ncol, major, minor, version);
    }

    private static void check(String resource, long offset, boolean ok, String message) {
        if (!ok) {
            throw new CorruptFileException(resource, offset, message);
        }
    }
}
