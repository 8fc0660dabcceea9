package io.javelin.encoding.file;

import java.util.ArrayList;
import java.util.List;

/**
 * The file-schema quirk of blob v2 columns as lance-core 7.0.0 writes them: the column is a packed
 * struct (metadata {@code lance-encoding:blob} and {@code lance-encoding:packed}) whose five descriptor
 * children ({@code kind, position, size, blob_id, blob_uri}) follow it with field id -1 and parent id -1
 * (ids are never assigned to them). Read literally they are duplicate top-level fields; they are the
 * children of the packed struct before them, so they are given fresh negative ids and that parent.
 */
final class BlobV2Descriptors {

    /** Names of the stored descriptor's children, in file order. */
    static final List<String> CHILDREN = List.of("kind", "position", "size", "blob_id", "blob_uri");

    private BlobV2Descriptors() {
    }

    static List<io.javelin.encoding.pb.file.Field> reparent(List<io.javelin.encoding.pb.file.Field> flat) {
        boolean any = false;
        for (var f : flat) {
            any |= f.getId() == -1 && f.getParentId() == -1;
        }
        if (!any) {
            return flat;
        }
        List<io.javelin.encoding.pb.file.Field> out = new ArrayList<>(flat.size());
        int owner = Integer.MIN_VALUE;
        int next = -1000;
        for (var f : flat) {
            if (f.getId() == -1 && f.getParentId() == -1 && owner != Integer.MIN_VALUE) {
                out.add(f.toBuilder().setId(next--).setParentId(owner).build());
                continue;
            }
            owner = isPackedBlobStruct(f) ? f.getId() : Integer.MIN_VALUE;
            out.add(f);
        }
        return out;
    }

    private static boolean isPackedBlobStruct(io.javelin.encoding.pb.file.Field f) {
        if (!f.getLogicalType().equals("struct")) {
            return false;
        }
        var md = f.getMetadataMap();
        return md.containsKey("lance-encoding:blob")
                && (md.containsKey("lance-encoding:packed") || md.containsKey("packed"));
    }
}
