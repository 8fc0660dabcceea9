package io.javelin.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;

/**
 * A fragment written but not committed (distributed writes): what a worker sends to the committer.
 * The JSON has Lance's {@code FragmentMetadata.to_json()} shape (serde names of {@code Fragment}):
 * {@code {"id", "files": [{"path", "fields", "column_indices", "file_major_version",
 * "file_minor_version", "file_size_bytes"}], "deletion_file", "physical_rows"}}.
 */
public record FragmentMetadata(DataFragment fragment) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public long physicalRows() {
        return fragment.getPhysicalRows();
    }

    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("id", fragment.getId());
        ArrayNode files = o.putArray("files");
        for (DataFile f : fragment.getFilesList()) {
            ObjectNode n = files.addObject();
            n.put("path", f.getPath());
            ArrayNode fields = n.putArray("fields");
            f.getFieldsList().forEach(fields::add);
            ArrayNode cols = n.putArray("column_indices");
            f.getColumnIndicesList().forEach(cols::add);
            n.put("file_major_version", f.getFileMajorVersion());
            n.put("file_minor_version", f.getFileMinorVersion());
            n.put("file_size_bytes", f.getFileSizeBytes());
            if (f.hasBaseId()) {
                n.put("base_id", f.getBaseId());
            } else {
                n.putNull("base_id");
            }
        }
        if (fragment.hasDeletionFile()) {
            DeletionFile d = fragment.getDeletionFile();
            ObjectNode n = o.putObject("deletion_file");
            n.put("read_version", d.getReadVersion());
            n.put("id", d.getId());
            n.put("file_type", d.getFileType() == DeletionFile.DeletionFileType.BITMAP ? "bitmap" : "array");
            n.put("num_deleted_rows", d.getNumDeletedRows());
        } else {
            o.putNull("deletion_file");
        }
        o.putNull("row_id_meta");
        o.put("physical_rows", fragment.getPhysicalRows());
        return o.toString();
    }

    /** Parses {@link #toJson()} output (and Lance's, for the members modelled here). */
    public static FragmentMetadata fromJson(String json) {
        JsonNode o;
        try {
            o = JSON.readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("Invalid fragment metadata JSON: " + e.getMessage(), e);
        }
        if (o == null || !o.isObject() || !o.has("files") || !o.has("physical_rows")) {
            throw new IllegalArgumentException("Fragment metadata JSON needs 'files' and 'physical_rows': " + json);
        }
        DataFragment.Builder b = DataFragment.newBuilder().setId(o.path("id").asLong(0))
                .setPhysicalRows(o.get("physical_rows").asLong());
        for (JsonNode f : o.get("files")) {
            DataFile.Builder d = DataFile.newBuilder().setPath(f.get("path").asText())
                    .setFileMajorVersion(f.path("file_major_version").asInt())
                    .setFileMinorVersion(f.path("file_minor_version").asInt())
                    .setFileSizeBytes(f.path("file_size_bytes").asLong(0));
            f.path("fields").forEach(x -> d.addFields(x.asInt()));
            f.path("column_indices").forEach(x -> d.addColumnIndices(x.asInt()));
            if (f.hasNonNull("base_id")) {
                d.setBaseId(f.get("base_id").asInt());
            }
            b.addFiles(d);
        }
        JsonNode del = o.get("deletion_file");
        if (del != null && !del.isNull()) {
            b.setDeletionFile(DeletionFile.newBuilder().setReadVersion(del.path("read_version").asLong())
                    .setId(del.path("id").asLong())
                    .setFileType("bitmap".equalsIgnoreCase(del.path("file_type").asText())
                            ? DeletionFile.DeletionFileType.BITMAP : DeletionFile.DeletionFileType.ARROW_ARRAY)
                    .setNumDeletedRows(del.path("num_deleted_rows").asLong()));
        }
        return new FragmentMetadata(b.build());
    }
}
