package io.javelin.engine.maintenance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.tx.pb.Transaction;
import java.io.Serializable;
import java.util.Base64;

/**
 * What a worker's {@link CompactionTask} wrote (Lance {@code RewriteResult}): the rewrite group (old
 * fragments, new fragments, protobuf-encoded) and its metrics; nothing is committed until
 * {@code Dataset.commitCompaction} gets every result.
 */
public record RewriteResult(long readVersion, byte[] rewriteGroup, CompactionMetrics metrics) implements Serializable {

    public RewriteResult {
        rewriteGroup = rewriteGroup.clone();
    }

    public static RewriteResult of(long readVersion, Transaction.Rewrite.RewriteGroup group) {
        int oldFiles = group.getOldFragmentsList().stream().mapToInt(f -> f.getFilesCount()).sum();
        int newFiles = group.getNewFragmentsList().stream().mapToInt(f -> f.getFilesCount()).sum();
        return new RewriteResult(readVersion, group.toByteArray(), new CompactionMetrics(group.getOldFragmentsCount(),
                group.getNewFragmentsCount(), oldFiles, newFiles));
    }

    @Override
    public byte[] rewriteGroup() {
        return rewriteGroup.clone();
    }

    public Transaction.Rewrite.RewriteGroup group() {
        try {
            return Transaction.Rewrite.RewriteGroup.parseFrom(rewriteGroup);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalArgumentException("Corrupt rewrite result: " + e.getMessage(), e);
        }
    }

    public String toJson() {
        ObjectNode o = CompactionTask.JSON.createObjectNode();
        o.put("read_version", readVersion);
        o.put("rewrite_group", Base64.getEncoder().encodeToString(rewriteGroup));
        ObjectNode m = o.putObject("metrics");
        m.put("fragments_removed", metrics.fragmentsRemoved());
        m.put("fragments_added", metrics.fragmentsAdded());
        m.put("files_removed", metrics.filesRemoved());
        m.put("files_added", metrics.filesAdded());
        return o.toString();
    }

    public static RewriteResult fromJson(String json) {
        JsonNode o = CompactionTask.parse(json, "rewrite result");
        if (!o.has("read_version") || !o.has("rewrite_group")) {
            throw new IllegalArgumentException("Rewrite result JSON needs 'read_version' and 'rewrite_group'");
        }
        JsonNode m = o.path("metrics");
        byte[] g;
        try {
            g = Base64.getDecoder().decode(o.get("rewrite_group").asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Rewrite result JSON: 'rewrite_group' is not base64", e);
        }
        return new RewriteResult(o.get("read_version").asLong(), g, new CompactionMetrics(m.path("fragments_removed").asInt(),
                m.path("fragments_added").asInt(), m.path("files_removed").asInt(), m.path("files_added").asInt()));
    }
}
