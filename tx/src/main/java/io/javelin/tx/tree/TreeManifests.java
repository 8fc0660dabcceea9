package io.javelin.tx.tree;

import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.Manifest;
import reactor.core.publisher.Mono;

/** Puts a tree descriptor into a Version Manifest: the field, flag 4096 in both words, no flat list. */
public final class TreeManifests {

    private TreeManifests() {
    }

    /** Marks {@code manifest} as a tree table storing its fragments in {@code metadata}. */
    public static Manifest.Builder publish(Manifest.Builder manifest, FragmentTreeMetadata metadata) {
        return manifest.setFragmentTree(metadata).clearFragments()
                .setReaderFeatureFlags(manifest.getReaderFeatureFlags() | TreeSnapshot.FLAG_FRAGMENT_TREE)
                .setWriterFeatureFlags(manifest.getWriterFeatureFlags() | TreeSnapshot.FLAG_FRAGMENT_TREE);
    }

    /**
     * In-place conversion of a flat table: the next version stores the same fragments in a new
     * tree. Writes only leaves, interiors and (if not inline) the root; history stays readable.
     * The caller commits the returned manifest as version {@code flat.version + 1}.
     */
    public static Mono<Manifest> convert(TreeWriter writer, Manifest flat) {
        return writer.build(flat.getFragmentsList(), 1).map(r -> publish(flat.toBuilder(), r.metadata())
                .setVersion(flat.getVersion() + 1).build());
    }
}
