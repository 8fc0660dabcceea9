package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DataOverlayFile;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeRoot;
import io.javelin.tx.pb.Manifest;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The fragment state of one tree-backed version, opened lazily: opening reads at most the
 * external root; resolving a fragment reads only its routing path; listing streams the leaves.
 * Every object is validated as it is decoded; a violation is a {@link CorruptSnapshotException}.
 */
public final class TreeSnapshot {

    /** Feature flag of tree tables, in both reader and writer flags (spec 000). */
    public static final long FLAG_FRAGMENT_TREE = 4096;

    final TreeEnv env;
    final Datasets datasets;
    final long maxFragmentId;
    final FragmentTree descriptor;
    final FragmentTreeRoot root;
    final NodeView rootView;
    final List<FragmentTreeMutation> suffix;
    final Set<Long> baseSequences;
    final TreeReader reader;
    final ObjectLocation rootLocation;
    private final long fragmentCount;
    private final long totalRows;
    private final long visibleRows;

    private TreeSnapshot(TreeEnv env, Datasets datasets, long maxFragmentId, FragmentTree descriptor,
            FragmentTreeRoot root, ObjectLocation rootLocation) {
        this.env = env;
        this.datasets = datasets;
        this.maxFragmentId = maxFragmentId;
        this.descriptor = descriptor;
        this.root = root;
        this.rootLocation = rootLocation;
        this.suffix = descriptor.getMutationsSinceRootList();
        check(root.getNextActionSequence() >= 1, Rule.R48_ROOT_SEQUENCE, "root next_action_sequence is 0");
        check(descriptor.getNextActionSequence() >= root.getNextActionSequence(), Rule.R49_SUFFIX_SEQUENCE,
                "tree next_action_sequence %d below root's %d", descriptor.getNextActionSequence(),
                root.getNextActionSequence());
        this.reader = new TreeReader(env, datasets, maxFragmentId, root.getNextActionSequence());
        Set<Long> seqs = new HashSet<>();
        Sequences open = new Sequences(Set.of());
        long[] sums = new long[3];
        for (FragmentTreeMutation m : suffix) {
            reader.checkMutation(m, open);
            check(m.getActionSequence() >= root.getNextActionSequence()
                    && m.getActionSequence() < descriptor.getNextActionSequence(), Rule.R49_SUFFIX_SEQUENCE,
                    "suffix sequence %d outside [%d, %d)", m.getActionSequence(), root.getNextActionSequence(),
                    descriptor.getNextActionSequence());
            seqs.add(m.getActionSequence());
            sums[0] += m.getFragmentCountDelta();
            sums[1] += m.getTotalRowsDelta();
            sums[2] += m.getVisibleRowsDelta();
        }
        this.rootView = reader.validateNode(root.getChildrenList(), root.getBufferList(), datasets.current(), 0,
                TreeReader.KEY_END, -1, null, open);
        for (FragmentTreeMutation m : root.getBufferList()) {
            seqs.add(m.getActionSequence());
            sums[0] += m.getFragmentCountDelta();
            sums[1] += m.getTotalRowsDelta();
            sums[2] += m.getVisibleRowsDelta();
        }
        for (var c : root.getChildrenList()) {
            sums[0] += c.getNumKeys();
            sums[1] += c.getTotalRows();
            sums[2] += c.getVisibleRows();
        }
        check(sums[0] >= 0 && sums[2] >= 0 && sums[2] <= sums[1], Rule.R46_DERIVED_COUNTS,
                "derived counts fragments=%d total=%d visible=%d", sums[0], sums[1], sums[2]);
        this.baseSequences = Set.copyOf(seqs);
        this.fragmentCount = sums[0];
        this.totalRows = sums[1];
        this.visibleRows = sums[2];
    }

    /** A snapshot of a root already in memory (no I/O); validated like any opened snapshot. */
    static TreeSnapshot of(TreeEnv env, Datasets datasets, long maxFragmentId, FragmentTree descriptor,
            FragmentTreeRoot root, ObjectLocation rootLocation) {
        return new TreeSnapshot(env, datasets, maxFragmentId, descriptor, root, rootLocation);
    }

    /**
     * Checks the manifest-level rules of a tree table and opens its fragment state.
     *
     * @param datasetRoot URI of the dataset the manifest belongs to
     */
    public static Mono<TreeSnapshot> open(TreeEnv env, Manifest manifest, String datasetRoot) {
        return Mono.defer(() -> {
            checkManifest(manifest);
            Datasets datasets = new Datasets(datasetRoot, manifest.getBasePathsList());
            long max = manifest.hasMaxFragmentId() ? Integer.toUnsignedLong(manifest.getMaxFragmentId()) : -1;
            return open(env, manifest.getFragmentTree(), datasets, max);
        });
    }

    /** Manifest rules R01-R03: the tree field, flag 4096 in both words and an empty fragment list agree. */
    public static void checkManifest(Manifest manifest) {
        boolean reader = (manifest.getReaderFeatureFlags() & FLAG_FRAGMENT_TREE) != 0;
        boolean writer = (manifest.getWriterFeatureFlags() & FLAG_FRAGMENT_TREE) != 0;
        check(reader == writer && writer == manifest.hasFragmentTree(), Rule.R01_FLAGS_AGREE,
                "reader flag %s, writer flag %s, fragment_tree %s", reader, writer, manifest.hasFragmentTree());
        check(manifest.hasFragmentTree(), Rule.R01_FLAGS_AGREE, "manifest is not a tree table");
        check(manifest.getFragmentsCount() == 0, Rule.R02_FRAGMENTS_EMPTY, "tree table lists %d flat fragments",
                manifest.getFragmentsCount());
    }

    /** Opens the fragment state of a descriptor: at most one GET (the external root), no LIST. */
    public static Mono<TreeSnapshot> open(TreeEnv env, FragmentTreeMetadata metadata, Datasets datasets,
            long maxFragmentId) {
        return Mono.defer(() -> {
            check(metadata.getLayoutCase() == FragmentTreeMetadata.LayoutCase.TREE, Rule.R03_LAYOUT,
                    "fragment_tree selects no recognized layout");
            FragmentTree tree = metadata.getTree();
            switch (tree.getRootCase()) {
                case INLINE_ROOT -> {
                    check(tree.getMutationsSinceRootCount() == 0, Rule.R05_INLINE_NO_SUFFIX,
                            "inline root with %d mutations_since_root", tree.getMutationsSinceRootCount());
                    return Mono.just(new TreeSnapshot(env, datasets, maxFragmentId, tree, tree.getInlineRoot(), null));
                }
                case ROOT_UUID -> {
                    ObjectLocation loc = new ObjectLocation("", TreePaths.rootPath(tree.getRootUuid()));
                    return env.store().get(loc).map(bytes -> {
                        FragmentTreeRoot root;
                        try {
                            root = FragmentTreeRoot.parseFrom(bytes);
                        } catch (InvalidProtocolBufferException e) {
                            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, loc + " is not a FragmentTreeRoot", e);
                        }
                        return new TreeSnapshot(env, datasets, maxFragmentId, tree, root, loc);
                    });
                }
                default -> throw new CorruptSnapshotException(Rule.R04_ONE_ROOT, "FragmentTree has no root");
            }
        });
    }

    /** The descriptor this snapshot was opened from. */
    public FragmentTreeMetadata metadata() {
        return FragmentTreeMetadata.newBuilder().setTree(descriptor).build();
    }

    public long maxFragmentId() {
        return maxFragmentId;
    }

    public Datasets datasets() {
        return datasets;
    }

    /** Derived number of fragments (root summaries + root buffer + suffix deltas); no I/O. */
    public long fragmentCount() {
        return fragmentCount;
    }

    public long totalRows() {
        return totalRows;
    }

    public long visibleRows() {
        return visibleRows;
    }

    /** Height of the tree (0 when the root has no children). */
    public int height() {
        return rootView.children().isEmpty() ? 0 : rootView.height();
    }

    /** Resolves one fragment, reading only its routing path. */
    public Mono<Optional<DataFragment>> resolve(long id) {
        return resolveAll(new TreeSet<>(List.of(id))).map(m -> Optional.ofNullable(m.get(id)));
    }

    /** Resolves a set of fragments, reading each node and leaf on their routing paths once. */
    public Mono<Map<Long, DataFragment>> resolveAll(SortedSet<Long> ids) {
        return Mono.defer(() -> {
            SortedSet<Long> wanted = new TreeSet<>();
            for (long id : ids) {
                if (id >= 0 && id <= maxFragmentId) {
                    wanted.add(id);
                }
            }
            Map<Long, List<FragmentTreeMutation>> pending = new HashMap<>();
            collect(suffix, wanted, pending);
            collect(root.getBufferList(), wanted, pending);
            Sequences seqs = new Sequences(baseSequences);
            Map<Long, DataFragment> out = new ConcurrentHashMap<>();
            if (rootView.children().isEmpty()) {
                for (long id : wanted) {
                    put(out, id, Replay.applyRun(null, sorted(pending.get(id)), 0));
                }
                return Mono.just((Map<Long, DataFragment>) out);
            }
            return walk(rootView, wanted, pending, seqs, out).then(Mono.fromSupplier(() -> out));
        });
    }

    private Mono<Void> walk(NodeView view, SortedSet<Long> ids, Map<Long, List<FragmentTreeMutation>> pending,
            Sequences seqs, Map<Long, DataFragment> out) {
        TreeMap<Integer, SortedSet<Long>> groups = new TreeMap<>();
        for (long id : ids) {
            groups.computeIfAbsent(view.route(id), k -> new TreeSet<>()).add(id);
        }
        // Errors wait for sibling reads in flight, so a failed read never abandons a decode midway.
        return Flux.fromIterable(groups.entrySet()).flatMapDelayError(e -> {
            ChildRef ref = view.children().get(e.getKey());
            SortedSet<Long> group = e.getValue();
            if (ref.isLeaf()) {
                return reader.loadLeafRows(ref, group).doOnNext(records -> {
                    long watermark = ref.child().getMaterializedThroughActionSequence();
                    for (long id : group) {
                        put(out, id, Replay.applyRun(find(records, id), sorted(pending.get(id)), watermark));
                    }
                }).then();
            }
            return reader.loadNode(ref, seqs).flatMap(child -> {
                Map<Long, List<FragmentTreeMutation>> deeper = new HashMap<>();
                for (long id : group) {
                    List<FragmentTreeMutation> p = pending.get(id);
                    if (p != null) {
                        deeper.put(id, new ArrayList<>(p));
                    }
                }
                collect(child.buffer(), group, deeper);
                return walk(child, group, deeper, seqs, out);
            });
        }, env.config().leafParallelism(), 1).then();
    }

    private static void put(Map<Long, DataFragment> out, long id, DataFragment f) {
        if (f != null) {
            out.put(id, f);
        }
    }

    private static DataFragment find(List<DataFragment> records, long id) {
        int lo = 0;
        int hi = records.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            long v = records.get(mid).getId();
            if (v == id) {
                return records.get(mid);
            } else if (v < id) {
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return null;
    }

    private static List<FragmentTreeMutation> sorted(List<FragmentTreeMutation> l) {
        if (l == null) {
            return List.of();
        }
        List<FragmentTreeMutation> s = new ArrayList<>(l);
        s.sort((a, b) -> Long.compare(a.getActionSequence(), b.getActionSequence()));
        return s;
    }

    private static void collect(Collection<FragmentTreeMutation> source, Set<Long> ids,
            Map<Long, List<FragmentTreeMutation>> into) {
        for (FragmentTreeMutation m : source) {
            long t = Records.target(m.getAction());
            if (ids.contains(t)) {
                into.computeIfAbsent(t, k -> new ArrayList<>()).add(m);
            }
        }
    }

    /** Streams every fragment in id order; leaves are fetched in parallel. */
    public Flux<DataFragment> fragments() {
        return Flux.defer(() -> {
            Sequences seqs = new Sequences(baseSequences);
            List<FragmentTreeMutation> pending = new ArrayList<>(suffix);
            return walkAll(rootView, pending, seqs);
        });
    }

    private Flux<DataFragment> walkAll(NodeView view, List<FragmentTreeMutation> pending, Sequences seqs) {
        List<FragmentTreeMutation> all = new ArrayList<>(pending);
        all.addAll(view.buffer());
        if (view.children().isEmpty()) {
            return Flux.fromIterable(Replay.apply(List.of(), all, 0));
        }
        List<List<FragmentTreeMutation>> buckets = new ArrayList<>();
        for (int i = 0; i < view.children().size(); i++) {
            buckets.add(new ArrayList<>());
        }
        for (FragmentTreeMutation m : all) {
            buckets.get(view.route(Records.target(m.getAction()))).add(m);
        }
        return Flux.range(0, view.children().size()).flatMapSequentialDelayError(i -> {
            ChildRef ref = view.children().get(i);
            if (ref.isLeaf()) {
                return reader.loadLeaf(ref).flatMapIterable(records -> Replay.apply(records, buckets.get(i),
                        ref.child().getMaterializedThroughActionSequence()));
            }
            return reader.loadNode(ref, seqs).flatMapMany(child -> walkAll(child, buckets.get(i), seqs));
        }, env.config().leafParallelism(), 32)
                // delayError gathers every failing child: report the first (typed) one, the rest suppressed
                .onErrorMap(reactor.core.Exceptions::isMultiple, io.javelin.objectstore.internal.FirstError::of);
    }

    /**
     * The {@code _bt/} objects reachable from this version: the external root, if any, and every
     * node and leaf below it. Reads interiors only (leaf references are known from their parents).
     */
    public Mono<Set<ObjectLocation>> treeObjects() {
        return Mono.defer(() -> {
            Set<ObjectLocation> out = ConcurrentHashMap.newKeySet();
            if (rootLocation != null) {
                out.add(rootLocation);
            }
            return collectObjects(rootView, new Sequences(baseSequences), out).then(Mono.fromSupplier(() -> out));
        });
    }

    private Mono<Void> collectObjects(NodeView view, Sequences seqs, Set<ObjectLocation> out) {
        return Flux.fromIterable(view.children()).flatMap(ref -> {
            out.add(ref.location());
            if (ref.isLeaf()) {
                return Mono.<Void>empty();
            }
            return reader.loadNode(ref, seqs).flatMap(child -> collectObjects(child, seqs, out));
        }, env.config().leafParallelism()).then();
    }

    /**
     * Every data, deletion and overlay file named by the resolved fragment state, located by
     * resolved dataset. Files named only by superseded mutations are not included.
     */
    public Mono<Set<ObjectLocation>> referencedFiles() {
        return fragments().collect(HashSet<ObjectLocation>::new, (set, f) -> {
            for (DataFile df : f.getFilesList()) {
                set.add(dataFile(df));
            }
            for (DataOverlayFile o : f.getOverlaysList()) {
                set.add(dataFile(o.getDataFile()));
            }
            // ExternalFile paths are relative to the dataset holding the fragment state; records of
            // foreign leaves are counted here too, which can only keep a local object alive.
            for (var ext : new io.javelin.tx.pb.ExternalFile[] {
                    f.hasExternalRowIds() ? f.getExternalRowIds() : null,
                    f.hasExternalLastUpdatedAtVersions() ? f.getExternalLastUpdatedAtVersions() : null,
                    f.hasExternalCreatedAtVersions() ? f.getExternalCreatedAtVersions() : null}) {
                if (ext != null) {
                    set.add(new ObjectLocation("", ext.getPath()));
                }
            }
            if (f.hasDeletionFile()) {
                DeletionFile d = f.getDeletionFile();
                Datasets.Owner owner = datasets.resolve(datasets.current(), d.hasBaseId() ? d.getBaseId() : null);
                String ext = d.getFileType() == DeletionFile.DeletionFileType.BITMAP ? "bin" : "arrow";
                set.add(new ObjectLocation(owner.root(), "_deletions/" + f.getId() + "-" + d.getReadVersion() + "-"
                        + Long.toUnsignedString(d.getId()) + "." + ext));
            }
        }).map(s -> (Set<ObjectLocation>) s);
    }

    private ObjectLocation dataFile(DataFile df) {
        Datasets.Owner owner = datasets.resolve(datasets.current(), df.hasBaseId() ? df.getBaseId() : null);
        return new ObjectLocation(owner.root(), "data/" + df.getPath());
    }

}
