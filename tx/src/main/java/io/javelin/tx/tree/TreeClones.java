package io.javelin.tx.tree;

import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.pb.BasePath;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeRoot;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.store.ManifestStore;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The fragment tree of a shallow clone's (or branch's) first manifest, by spec 000's copy-and-remap
 * rules: the clone's root is its own (published inline, so cloning writes no tree object), every
 * source subtree is shared through the BasePath naming the source dataset root, and every reference
 * that inherited the source dataset (a child without base_id, a file of a buffered mutation without
 * base_id) is rewritten to name it. Explicit base ids keep their meaning because the clone keeps the
 * source's base_paths at the same ids. Mutations that name ExternalFile row-id or version sequences
 * cannot be preserved (their paths are relative to the source) and fail the clone.
 */
public final class TreeClones {

    private TreeClones() {
    }

    /**
     * Rewrites the tree of {@code cloned} (the source manifest as {@link io.javelin.tx.branch.Clones}
     * prepared it: base path {@code sourceBaseId} names the source root) so that it resolves from the
     * clone. Reads at most the source's external root.
     */
    public static Mono<Manifest> shallow(ManifestStore sourceStore, Manifest source, Manifest cloned,
            int sourceBaseId) {
        return Mono.defer(() -> {
            if (!source.hasFragmentTree()) {
                return Mono.just(cloned);
            }
            BasePath base = cloned.getBasePathsList().stream().filter(b -> b.getId() == sourceBaseId).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no base path " + sourceBaseId));
            if (!base.getIsDatasetRoot()) {
                throw new IllegalArgumentException("base path " + sourceBaseId + " is not a dataset root");
            }
            return TreeTables.open(sourceStore, source).map(tree -> {
                FragmentTree root = remap(tree.descriptor, tree.root, sourceBaseId);
                return TreeManifests.publish(cloned.toBuilder(), FragmentTreeMetadata.newBuilder().setTree(root).build())
                        .build();
            });
        });
    }

    /** The clone's inline root: the source root (and its suffix, folded into the buffer) remapped. */
    static FragmentTree remap(FragmentTree descriptor, FragmentTreeRoot root, int baseId) {
        FragmentTreeRoot.Builder r = FragmentTreeRoot.newBuilder()
                .setNextActionSequence(descriptor.getNextActionSequence());
        for (FragmentTreeChild c : root.getChildrenList()) {
            r.addChildren(c.hasBaseId() ? c : c.toBuilder().setBaseId(baseId).build());
        }
        List<FragmentTreeMutation> buffer = new ArrayList<>(root.getBufferList());
        buffer.addAll(descriptor.getMutationsSinceRootList());
        for (FragmentTreeMutation m : buffer) {
            if (m.getAction().hasUpsertFragment()) {
                requirePortable(m.getAction().getUpsertFragment());
            }
            r.addBuffer(TreeReader.stamp(m, baseId));
        }
        return FragmentTree.newBuilder().setInlineRoot(r).setNextActionSequence(descriptor.getNextActionSequence())
                .build();
    }

    private static void requirePortable(DataFragment f) {
        if (f.hasExternalRowIds() || f.hasExternalLastUpdatedAtVersions() || f.hasExternalCreatedAtVersions()) {
            throw new UnsupportedFeatureException("Fragment " + f.getId() + " names ExternalFile row-id or version"
                    + " sequences, which a shallow clone cannot preserve (they are not copied yet)");
        }
    }
}
