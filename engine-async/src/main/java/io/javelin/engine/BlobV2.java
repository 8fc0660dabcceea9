package io.javelin.engine;

import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Blob v2 columns (format 2.2+): a struct tagged {@code ARROW:extension:name = lance.blob.v2}. The dataset
 * schema keeps the logical shape the writer accepted ({@code data, uri[, position, size]}); data files
 * store, and scans return, the compact descriptor {@code kind u8, position u64, size u64, blob_id u32,
 * blob_uri utf8}.
 */
public final class BlobV2 {

    public static final String EXTENSION_KEY = "ARROW:extension:name";
    public static final String EXTENSION_NAME = "lance.blob.v2";
    /** Legacy (format ≤ 2.1) blob marker on a large-binary field. */
    public static final String LEGACY_KEY = "lance-encoding:blob";
    public static final String INLINE_THRESHOLD_KEY = "lance-encoding:blob-inline-size-threshold";
    public static final String DEDICATED_THRESHOLD_KEY = "lance-encoding:blob-dedicated-size-threshold";

    /** Descriptor kinds (the {@code kind} child). */
    public static final int INLINE = 0;
    public static final int PACKED = 1;
    public static final int DEDICATED = 2;
    public static final int EXTERNAL = 3;

    private BlobV2() {
    }

    public static boolean isBlobV2(Field f) {
        return f != null && f.getType() instanceof ArrowType.Struct && f.getMetadata() != null
                && EXTENSION_NAME.equals(f.getMetadata().get(EXTENSION_KEY));
    }

    public static boolean isLegacyBlob(Field f) {
        return f != null && f.getMetadata() != null && "true".equalsIgnoreCase(f.getMetadata().get(LEGACY_KEY));
    }

    /** The stored descriptor struct a scan returns for the blob v2 column {@code logical}. */
    public static Field descriptorField(Field logical) {
        return new Field(logical.getName(), new FieldType(logical.isNullable(), ArrowType.Struct.INSTANCE, null), List.of(
                new Field("kind", FieldType.notNullable(new ArrowType.Int(8, false)), null),
                new Field("position", FieldType.notNullable(new ArrowType.Int(64, false)), null),
                new Field("size", FieldType.notNullable(new ArrowType.Int(64, false)), null),
                new Field("blob_id", FieldType.notNullable(new ArrowType.Int(32, false)), null),
                new Field("blob_uri", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));
    }

    /** True when {@code f} has the descriptor's children (kind … blob_uri). */
    static boolean isDescriptor(Field f) {
        if (!(f.getType() instanceof ArrowType.Struct) || f.getChildren().size() != 5) {
            return false;
        }
        List<String> names = f.getChildren().stream().map(Field::getName).toList();
        return names.equals(List.of("kind", "position", "size", "blob_id", "blob_uri"));
    }

    /** The field a scan of {@code f} produces: the descriptor for blob v2 columns, {@code f} otherwise. */
    static Field scanField(Field f) {
        return isBlobV2(f) ? descriptorField(f) : f;
    }

    /**
     * Sidecar path (relative to the data directory) of blob {@code blobId} of the data file {@code dataFile}:
     * {@code <stem>/<32-digit binary of the bit-reversed id>.blob} (reversal scatters sequential ids' prefixes).
     */
    public static String sidecarPath(String dataFile, long blobId) {
        String stem = dataFile.endsWith(".lance") ? dataFile.substring(0, dataFile.length() - ".lance".length()) : dataFile;
        String bits = Integer.toBinaryString(Integer.reverse((int) blobId));
        return stem + "/" + "0".repeat(32 - bits.length()) + bits + ".blob";
    }

    static Map<String, String> metadata(Field f) {
        return f.getMetadata() == null ? Map.of() : f.getMetadata();
    }
}
