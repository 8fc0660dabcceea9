package io.javelin.tx.branch;

import java.util.List;
import java.util.Map;

/**
 * A branch reference ({@code _refs/branches/{name}.json}, Lance 7.0.0 layout): the parent branch (null =
 * main), the parent version it was created from, creation time (unix seconds, JSON key {@code createAt}),
 * the size of its first manifest, the lineage {@code identifier.version_mapping} ([version, uuid-hex]
 * pairs), and free metadata.
 */
public record Branch(String name, String parentBranch, long parentVersion, long createAt, long manifestSize,
                     List<VersionMapping> versionMapping, Map<String, String> metadata) {

    public record VersionMapping(long version, String uuid) {
    }

    public Branch {
        versionMapping = List.copyOf(versionMapping);
        metadata = Map.copyOf(metadata);
    }
}
