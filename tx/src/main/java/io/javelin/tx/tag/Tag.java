package io.javelin.tx.tag;

import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;

/**
 * A named pointer to a dataset version ({@code _refs/tags/{name}.json}). {@code branch} is null for the
 * main branch; {@code manifestSize} lets readers open the manifest without a HEAD request. The
 * timestamps and metadata arrived in Lance 7 and are null/empty in older tags.
 */
public record Tag(String name, String branch, long version, Instant createdAt, Instant updatedAt,
                  long manifestSize, Map<String, String> metadata) {

    public Tag {
        metadata = metadata == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(metadata));
    }
}
