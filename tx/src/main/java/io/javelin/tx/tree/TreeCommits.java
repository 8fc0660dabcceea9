package io.javelin.tx.tree;

import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.transaction.ManifestBuilder;
import io.javelin.tx.transaction.OperationKind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The commit seam for tree tables. Native semantics stay with {@link ManifestBuilder}: it runs
 * over a <em>partial</em> flat view holding only the fragments the operation touches (resolved
 * along their routing paths), and the difference between that view and its result is lowered to
 * tree edits ({@link TreeWriter#commit}). Whole-state operations rebuild (Overwrite), reuse a root
 * (Restore) or convert (a flat table whose config selects {@code lance.manifest.layout=tree}).
 * Every tree object is durable when the returned manifest is emitted; publishing it is the
 * caller's visibility point.
 */
public final class TreeCommits {

    private TreeCommits() {
    }

    /** The next manifest for {@code txn} on {@code base} (null when creating), flat or tree. */
    public static Mono<ManifestBuilder.Built> build(ManifestStore store, ManifestFile base, Transaction txn,
            ManifestFile restoreSource, Instant now) {
        return build(store, base, txn, restoreSource, now, false);
    }

    /** As above; {@code enableStableRowIds} only matters when creating (see {@link ManifestBuilder}). */
    public static Mono<ManifestBuilder.Built> build(ManifestStore store, ManifestFile base, Transaction txn,
            ManifestFile restoreSource, Instant now, boolean enableStableRowIds) {
        return Mono.defer(() -> {
            boolean baseTree = base != null && base.manifest().hasFragmentTree();
            if (OperationKind.of(txn) == OperationKind.RESTORE && restoreSource != null
                    && (baseTree || restoreSource.manifest().hasFragmentTree())) {
                return Mono.just(restore(base, txn, restoreSource, now));
            }
            if (!baseTree) {
                ManifestBuilder.Built flat = ManifestBuilder.build(base, txn, restoreSource, now, enableStableRowIds);
                if (!TreeTables.wantsTree(flat.manifest().getConfigMap())) {
                    return Mono.just(flat);
                }
                return build(store, flat, flat.manifest().getFragmentsList(), 1, !flat.manifest().getFragmentsList()
                        .isEmpty() && base != null);
            }
            return switch (OperationKind.of(txn)) {
                case OVERWRITE -> {
                    ManifestBuilder.Built b = ManifestBuilder.build(flatView(base, List.of()), txn, null, now);
                    if (!TreeTables.wantsTree(b.manifest().getConfigMap())) {
                        yield Mono.just(b); // an overwrite that selects flat rebuilds the table flat
                    }
                    yield build(store, b, b.manifest().getFragmentsList(), nextSequence(base.manifest()), false);
                }
                default -> sparse(store, base, txn, now);
            };
        });
    }

    /** Builds a fresh tree holding {@code fragments} and publishes it in {@code flat}'s manifest. */
    private static Mono<ManifestBuilder.Built> build(ManifestStore store, ManifestBuilder.Built flat,
            List<DataFragment> fragments, long nextSequence, boolean recoverCounts) {
        TreeEnv env = TreeTables.env(store, flat.manifest().getConfigMap());
        Mono<List<DataFragment>> known = recoverCounts ? withKnownCounts(store, fragments) : Mono.just(fragments);
        return known.flatMap(list -> new TreeWriter(env).build(list, nextSequence))
                .map(r -> new ManifestBuilder.Built(publish(flat.manifest(), r.metadata(), false), flat.indexSection()));
    }

    /**
     * Leaves need known counts (spec: "counts in a leaf are known"). Fragments converted from old
     * flat manifests may lack num_deleted_rows: it is recovered from the deletion file.
     */
    private static Mono<List<DataFragment>> withKnownCounts(ManifestStore store, List<DataFragment> fragments) {
        return Flux.fromIterable(fragments).concatMap(f -> {
            if (f.getPhysicalRows() <= 0) {
                return Mono.error(new InvalidTableMetadataException("Fragment " + f.getId()
                        + " has unknown physical_rows; it cannot be stored in a fragment tree"));
            }
            if (!f.hasDeletionFile() || f.getDeletionFile().getNumDeletedRows() > 0) {
                return Mono.just(f);
            }
            return DeletionFiles.read(store, f).map(rb -> rb.isEmpty() ? f.toBuilder().clearDeletionFile().build()
                    : f.toBuilder().setDeletionFile(f.getDeletionFile().toBuilder()
                            .setNumDeletedRows(rb.getLongCardinality())).build());
        }, 8).collectList();
    }

    /** Operations that change a few fragments: resolve them, run the native builder, store the difference. */
    private static Mono<ManifestBuilder.Built> sparse(ManifestStore store, ManifestFile base, Transaction txn,
            Instant now) {
        TreeEnv env = TreeTables.env(store, base.manifest().getConfigMap());
        Optional<Set<Long>> touched = touched(txn, base.manifest());
        return TreeSnapshot.open(env, base.manifest(), "").flatMap(tree -> {
            Mono<List<DataFragment>> partial = touched.isPresent()
                    ? (touched.get().isEmpty() ? Mono.just(List.<DataFragment>of())
                            : tree.resolveAll(new TreeSet<>(touched.get())).map(m -> new ArrayList<>(m.values())))
                    : tree.fragments().collectList(); // an operation we do not know: every record
            return partial.flatMap(before -> {
                List<DataFragment> sorted = new ArrayList<>(before);
                sorted.sort(java.util.Comparator.comparingLong(DataFragment::getId));
                ManifestBuilder.Built b = ManifestBuilder.build(flatView(base, sorted), txn, null, now);
                Manifest built = b.manifest();
                if (!TreeTables.wantsTree(built.getConfigMap())) {
                    throw new InvalidTableMetadataException("A tree table cannot change "
                            + TreeTables.LAYOUT_KEY + " to flat in place; overwrite it to rebuild it flat");
                }
                Map<Long, Optional<DataFragment>> known = new HashMap<>();
                touched.orElseGet(() -> new LinkedHashSet<>(sorted.stream().map(DataFragment::getId).toList()))
                        .forEach(id -> known.put(id, Optional.empty()));
                sorted.forEach(f -> known.put(f.getId(), Optional.of(f)));
                List<FragmentEdit> edits = diff(sorted, built.getFragmentsList(), tree.maxFragmentId());
                long max = built.hasMaxFragmentId() ? Integer.toUnsignedLong(built.getMaxFragmentId()) : -1;
                TreeWriter writer = new TreeWriter(TreeTables.env(store, built.getConfigMap()));
                return writer.commit(tree, edits, max, known).map(r -> new ManifestBuilder.Built(
                        publish(built, r.metadata(), (base.manifest().getReaderFeatureFlags()
                                & FeatureFlags.DELETION_FILES) != 0), b.indexSection()));
            });
        });
    }

    /** Fragment ids an operation reads or changes, or empty when the whole state is needed. */
    static Optional<Set<Long>> touched(Transaction txn) {
        return touched(txn, null);
    }

    /**
     * As above, knowing the base manifest: a Project that keeps every field of {@code base}'s schema
     * (adds all-NULL columns, renames) drops no data file, so it touches no fragment.
     */
    static Optional<Set<Long>> touched(Transaction txn, Manifest base) {
        Set<Long> ids = new LinkedHashSet<>();
        switch (OperationKind.of(txn)) {
            case PROJECT -> {
                if (base == null) {
                    return Optional.empty();
                }
                Set<Integer> kept = new java.util.HashSet<>();
                txn.getProject().getSchemaList().forEach(f -> kept.add(f.getId()));
                boolean additive = base.getFieldsList().stream().allMatch(f -> kept.contains(f.getId()));
                return additive ? Optional.of(ids) : Optional.empty();
            }
            case APPEND, RESERVE_FRAGMENTS, UPDATE_CONFIG, CREATE_INDEX -> {
                return Optional.of(ids);
            }
            case DELETE -> {
                txn.getDelete().getUpdatedFragmentsList().forEach(f -> ids.add(f.getId()));
                ids.addAll(txn.getDelete().getDeletedFragmentIdsList());
                return Optional.of(ids);
            }
            case UPDATE -> {
                txn.getUpdate().getUpdatedFragmentsList().forEach(f -> ids.add(f.getId()));
                ids.addAll(txn.getUpdate().getRemovedFragmentIdsList());
                return Optional.of(ids);
            }
            case DATA_REPLACEMENT -> {
                // replaces files inside the named fragments only
                txn.getDataReplacement().getReplacementsList().forEach(r -> ids.add(r.getFragmentId()));
                return Optional.of(ids);
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /** Record changes between the partial view and the builder's result. */
    static List<FragmentEdit> diff(Collection<DataFragment> before, Collection<DataFragment> after, long previousMax) {
        Map<Long, DataFragment> old = new HashMap<>();
        before.forEach(f -> old.put(f.getId(), f));
        List<FragmentEdit> edits = new ArrayList<>();
        Set<Long> seen = new java.util.HashSet<>();
        for (DataFragment f : after) {
            seen.add(f.getId());
            DataFragment prev = old.get(f.getId());
            if (prev == null) {
                edits.add(f.getId() > previousMax ? new FragmentEdit.Create(f) : new FragmentEdit.Put(f));
            } else if (!prev.equals(f)) {
                edits.add(new FragmentEdit.Put(f));
            }
        }
        for (DataFragment f : before) {
            if (!seen.contains(f.getId())) {
                edits.add(new FragmentEdit.Remove(f.getId()));
            }
        }
        return edits;
    }

    /**
     * Restore of or onto a tree version: the restored version's descriptor is reused as it is (no
     * object is written) with the sequence frontier carried forward; a flat version restores flat.
     */
    private static ManifestBuilder.Built restore(ManifestFile base, Transaction txn, ManifestFile source, Instant now) {
        boolean sourceTree = source.manifest().hasFragmentTree();
        ManifestFile sourceView = sourceTree ? flatView(source, List.of()) : source;
        ManifestBuilder.Built b = ManifestBuilder.build(flatView(base, List.of()), txn, sourceView, now);
        if (!sourceTree) {
            return b;
        }
        FragmentTree restored = source.manifest().getFragmentTree().getTree();
        long next = Math.max(restored.getNextActionSequence(), nextSequence(base.manifest()));
        FragmentTreeMetadata meta = FragmentTreeMetadata.newBuilder()
                .setTree(restored.toBuilder().setNextActionSequence(next)).build();
        return new ManifestBuilder.Built(publish(b.manifest(), meta,
                (source.manifest().getReaderFeatureFlags() & FeatureFlags.DELETION_FILES) != 0), b.indexSection());
    }

    private static long nextSequence(Manifest m) {
        return m.hasFragmentTree() ? m.getFragmentTree().getTree().getNextActionSequence() : 1;
    }

    /** A tree manifest seen as a flat one holding {@code fragments} (the tree field and flag removed). */
    static ManifestFile flatView(ManifestFile f, List<DataFragment> fragments) {
        if (f == null) {
            return null;
        }
        Manifest m = f.manifest();
        Manifest view = m.toBuilder().clearFragmentTree().clearFragments().addAllFragments(fragments)
                .setReaderFeatureFlags(m.getReaderFeatureFlags() & ~FeatureFlags.FRAGMENT_TREE)
                .setWriterFeatureFlags(m.getWriterFeatureFlags() & ~FeatureFlags.FRAGMENT_TREE).build();
        return new ManifestFile(view, f.indexSection(), f.transaction(), f.size());
    }

    /** The builder's flat manifest turned into a tree manifest naming {@code meta}. */
    private static Manifest publish(Manifest built, FragmentTreeMetadata meta, boolean deletions) {
        Manifest.Builder m = TreeManifests.publish(built.toBuilder(), meta);
        if (deletions) {
            m.setReaderFeatureFlags(m.getReaderFeatureFlags() | FeatureFlags.DELETION_FILES)
                    .setWriterFeatureFlags(m.getWriterFeatureFlags() | FeatureFlags.DELETION_FILES);
        }
        return m.build();
    }
}
