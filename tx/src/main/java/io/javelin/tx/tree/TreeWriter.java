package io.javelin.tx.tree;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeNode;
import io.javelin.tx.pb.FragmentTreeRoot;
import io.javelin.tx.pb.AddDataFile;
import io.javelin.tx.pb.ReplaceDataFile;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Writes new tree versions: bulk builds from a flat fragment list, commits of fragment edits
 * (suffix, buffered or drained), overwrite and restore. Every returned descriptor names only
 * objects that were durably written before the returned {@link Mono} completed.
 */
public final class TreeWriter {

    private final TreeEnv env;
    private final TreeConfig config;
    private final Map<String, java.util.concurrent.atomic.LongAdder> events = new java.util.concurrent.ConcurrentHashMap<>();

    /** How often each structural event happened in this writer (drain, leafRun, merge, split, ...). */
    public Map<String, Long> events() {
        Map<String, Long> out = new java.util.TreeMap<>();
        events.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    private void event(String name) {
        events.computeIfAbsent(name, k -> new java.util.concurrent.atomic.LongAdder()).increment();
    }

    public TreeWriter(TreeEnv env) {
        this.env = env;
        this.config = env.config();
        TreeIds.init();
    }

    /** A new descriptor and what it took to write it. */
    public record Result(FragmentTreeMetadata metadata, List<ObjectLocation> written, long bytesWritten,
            List<FragmentTreeMutation> mutations, FragmentTreeRoot root) {

        /**
         * The new version's snapshot without reading anything back (a warm session chains commits
         * with zero reads); validated exactly like a snapshot opened from storage.
         */
        public TreeSnapshot snapshot(TreeEnv env, Datasets datasets, long maxFragmentId) {
            FragmentTree t = metadata.getTree();
            ObjectLocation loc = t.hasRootUuid() ? new ObjectLocation("", TreePaths.rootPath(t.getRootUuid())) : null;
            return TreeSnapshot.of(env, datasets, maxFragmentId, t, t.hasInlineRoot() ? t.getInlineRoot() : root, loc);
        }
    }

    // ------------------------------------------------------------------ public operations

    /**
     * Builds a tree from a complete flat fragment list (creation with {@code lance.manifest.layout=tree}
     * or in-place conversion of a flat table).
     *
     * @param nextSequence first unused action sequence (1 for a new tree)
     */
    public Mono<Result> build(List<DataFragment> fragments, long nextSequence) {
        return Mono.defer(() -> {
            Session session = new Session();
            List<DataFragment> sorted = new ArrayList<>(fragments);
            sorted.sort(Comparator.comparingLong(DataFragment::getId));
            long prev = -1;
            for (DataFragment f : sorted) {
                Records.checkRecord(f);
                if (f.getId() == prev) {
                    throw new IllegalArgumentException("duplicate fragment id " + f.getId());
                }
                prev = f.getId();
            }
            long next = Math.max(1, nextSequence);
            return writeLeaves(session, sorted, 0, 0).flatMap(leaves -> {
                NodeState root = new NodeState(leaves, new ArrayList<>(), 0, TreeReader.KEY_END, 0);
                return grow(session, root).flatMap(r -> publish(session, r, next, List.of()));
            });
        });
    }

    /** Replaces the whole fragment state (Overwrite): a fresh tree continuing the sequence namespace. */
    public Mono<Result> overwrite(TreeSnapshot base, List<DataFragment> fragments) {
        return build(fragments, base.descriptor.getNextActionSequence());
    }

    /**
     * Restore: the new version reuses the restored version's root (inline or external with its
     * suffix) and carries the current sequence frontier forward. Writes nothing.
     */
    public static FragmentTreeMetadata restore(TreeSnapshot current, FragmentTreeMetadata restored) {
        FragmentTree r = restored.getTree();
        long next = Math.max(current.descriptor.getNextActionSequence(), r.getNextActionSequence());
        return FragmentTreeMetadata.newBuilder().setTree(r.toBuilder().setNextActionSequence(next)).build();
    }

    /**
     * Commits edits on top of {@code base}. Reads only the prior records edits need (their routing
     * paths) plus whatever a drain rewrites.
     *
     * @param maxFragmentId Manifest.max_fragment_id of the new version
     */
    public Mono<Result> commit(TreeSnapshot base, List<FragmentEdit> edits, long maxFragmentId) {
        return commit(base, edits, maxFragmentId, Map.of());
    }

    /**
     * Commits edits whose prior records are partly known already ({@code known}: present or absent),
     * so that only the others are resolved from the tree.
     */
    public Mono<Result> commit(TreeSnapshot base, List<FragmentEdit> edits, long maxFragmentId,
            Map<Long, java.util.Optional<DataFragment>> known) {
        return Mono.defer(() -> {
            SortedSet<Long> needed = new TreeSet<>();
            for (FragmentEdit e : edits) {
                if (e.id() < 0 || e.id() > maxFragmentId) {
                    throw new IllegalArgumentException("fragment id " + e.id() + " above max_fragment_id " + maxFragmentId);
                }
                if (e instanceof FragmentEdit.Create c && c.id() <= base.maxFragmentId) {
                    throw new IllegalArgumentException("created fragment " + c.id() + " reuses an allocated id");
                }
                if (e instanceof FragmentEdit.Put || e instanceof FragmentEdit.Remove || e instanceof FragmentEdit.Modify) {
                    needed.add(e.id());
                }
            }
            needed.removeAll(known.keySet());
            Mono<Map<Long, DataFragment>> priors = needed.isEmpty() ? Mono.just(Map.of()) : base.resolveAll(needed);
            return priors.flatMap(resolved -> {
                Map<Long, DataFragment> prior = new HashMap<>(resolved);
                known.forEach((id, f) -> f.ifPresent(x -> prior.put(id, x)));
                List<FragmentTreeMutation> mutations = lower(base, edits, prior);
                return apply(base, mutations);
            });
        });
    }

    private static List<FragmentTreeMutation> lower(TreeSnapshot base, List<FragmentEdit> edits,
            Map<Long, DataFragment> prior) {
        Map<Long, DataFragment> state = new HashMap<>(prior);
        Set<Long> known = new HashSet<>(prior.keySet());
        for (FragmentEdit e : edits) {
            if (!(e instanceof FragmentEdit.AddFile) && !(e instanceof FragmentEdit.ReplaceFile)) {
                known.add(e.id());
            }
        }
        long seq = base.descriptor.getNextActionSequence();
        List<FragmentTreeMutation> out = new ArrayList<>();
        for (FragmentEdit e : edits) {
            List<FragmentAction> actions = switch (e) {
                case FragmentEdit.Create c -> List.of(FragmentAction.newBuilder().setUpsertFragment(c.fragment()).build());
                case FragmentEdit.Put p -> Lowering.lower(state.get(p.id()), p.fragment());
                case FragmentEdit.Modify m -> {
                    DataFragment before = state.get(m.id());
                    if (before == null) {
                        throw new IllegalArgumentException("fragment " + m.id() + " does not exist");
                    }
                    yield Lowering.lower(before, m.change().apply(before));
                }
                case FragmentEdit.Remove r -> state.get(r.id()) == null ? List.of()
                        : List.of(FragmentAction.newBuilder().setRemoveFragment(r.id()).build());
                case FragmentEdit.AddFile a -> List.of(FragmentAction.newBuilder().setAddDataFile(
                        AddDataFile.newBuilder().setFragId(a.id()).setFile(a.file())).build());
                case FragmentEdit.ReplaceFile r -> {
                    ReplaceDataFile.Builder b = ReplaceDataFile.newBuilder().setFragId(r.id())
                            .setExpectedPath(r.expectedPath()).setPath(r.path()).setFileSizeBytes(r.fileSizeBytes());
                    if (r.baseId() != null) {
                        b.setBaseId(r.baseId());
                    }
                    yield List.of(FragmentAction.newBuilder().setReplaceDataFile(b).build());
                }
            };
            for (FragmentAction a : actions) {
                long id = Records.target(a);
                FragmentTreeMutation m;
                if (known.contains(id)) {
                    DataFragment before = state.get(id);
                    m = Records.mutation(seq++, a, before);
                    DataFragment after = Records.apply(before, a);
                    if (after == null) {
                        state.remove(id);
                    } else {
                        Records.checkRecord(after);
                        state.put(id, after);
                    }
                } else {
                    // File edits of an unresolved fragment are count-neutral by construction.
                    m = FragmentTreeMutation.newBuilder().setActionSequence(seq++).setAction(a).build();
                }
                out.add(m);
            }
        }
        return out;
    }

    private Mono<Result> apply(TreeSnapshot base, List<FragmentTreeMutation> mutations) {
        FragmentTree d = base.descriptor;
        if (mutations.isEmpty()) {
            return Mono.just(new Result(base.metadata(), List.of(), 0, mutations, base.root));
        }
        long next = d.getNextActionSequence() + mutations.size();
        if (base.rootLocation != null && config.suffixBytes() > 0) {
            List<FragmentTreeMutation> suffix = new ArrayList<>(d.getMutationsSinceRootList());
            suffix.addAll(mutations);
            if (bytes(suffix) <= config.suffixBytes()) {
                FragmentTree t = d.toBuilder().clearMutationsSinceRoot().addAllMutationsSinceRoot(suffix)
                        .setNextActionSequence(next).build();
                return Mono.just(new Result(FragmentTreeMetadata.newBuilder().setTree(t).build(), List.of(), 0,
                        mutations, base.root));
            }
        }
        Session session = new Session(base);
        List<Part> children = new ArrayList<>();
        for (ChildRef r : base.rootView.children()) {
            children.add(new Part(asCurrent(r), null));
        }
        List<FragmentTreeMutation> buffer = new ArrayList<>(base.root.getBufferList());
        buffer.addAll(d.getMutationsSinceRootList());
        buffer.addAll(mutations);
        int childHeight = children.isEmpty() ? 0 : base.rootView.height() - 1;
        NodeState root = new NodeState(children, buffer, 0, TreeReader.KEY_END, childHeight);
        long[] expected = {base.fragmentCount(), base.totalRows(), base.visibleRows()};
        for (FragmentTreeMutation m : mutations) {
            expected[0] += m.getFragmentCountDelta();
            expected[1] += m.getTotalRowsDelta();
            expected[2] += m.getVisibleRowsDelta();
        }
        return rewriteRoot(session, root).flatMap(r -> {
            long[] got = summary(r);
            if (got[0] != expected[0] || got[1] != expected[1] || got[2] != expected[2]) {
                throw new IllegalStateException("materialization disagrees with derived totals");
            }
            return publish(session, r, next, mutations);
        });
    }

    private static FragmentTreeChild asCurrent(ChildRef r) {
        FragmentTreeChild c = r.child();
        if (!r.owner().isCurrent() && !c.hasBaseId()) {
            return c.toBuilder().setBaseId(r.owner().baseId()).build();
        }
        return c;
    }

    private Mono<Result> publish(Session session, NodeState root, long next, List<FragmentTreeMutation> mutations) {
        FragmentTreeRoot.Builder rb = FragmentTreeRoot.newBuilder().addAllBuffer(root.buffer).setNextActionSequence(next);
        for (Part p : root.children) {
            rb.addChildren(p.ref);
        }
        FragmentTreeRoot r = rb.build();
        FragmentTree inline = FragmentTree.newBuilder().setInlineRoot(r).setNextActionSequence(next).build();
        if (config.inlineRootBytes() > 0 && inline.getSerializedSize() <= config.inlineRootBytes()) {
            return Mono.just(session.result(inline, mutations, r));
        }
        UUID uuid = TreeIds.random();
        ObjectLocation loc = new ObjectLocation("", TreePaths.PREFIX + "root/" + uuid + ".root");
        FragmentTree ext = FragmentTree.newBuilder().setRootUuid(TreePaths.toBytes(uuid)).setNextActionSequence(next)
                .build();
        return session.put(loc, r.toByteArray()).thenReturn(session).map(s -> s.result(ext, mutations, r));
    }

    // ------------------------------------------------------------------ in-memory structure

    /** A child of a node being rewritten: its reference, and its content if this session has it. */
    static final class Part {
        final FragmentTreeChild ref;
        final NodeState state;
        /** Records of a leaf written by this session (never re-read from the store). */
        final List<DataFragment> records;

        Part(FragmentTreeChild ref, NodeState state) {
            this(ref, state, null);
        }

        Part(FragmentTreeChild ref, NodeState state, List<DataFragment> records) {
            this.ref = ref;
            this.state = state;
            this.records = records;
        }

        boolean loose() {
            return ref == null;
        }

        long minKey() {
            return ref != null ? ref.getMinKey() : state.lo;
        }
    }

    /** Content of a root or interior being rewritten. */
    static final class NodeState {
        List<Part> children;
        List<FragmentTreeMutation> buffer;
        long lo;
        long hi;
        int childHeight;

        NodeState(List<Part> children, List<FragmentTreeMutation> buffer, long lo, long hi, int childHeight) {
            this.children = children;
            this.buffer = buffer;
            this.lo = lo;
            this.hi = hi;
            this.childHeight = childHeight;
        }

        long childHi(int i) {
            return i + 1 < children.size() ? children.get(i + 1).minKey() : hi;
        }

        int route(long id) {
            int found = 0;
            for (int i = 0; i < children.size(); i++) {
                if (children.get(i).minKey() <= id) {
                    found = i;
                } else {
                    break;
                }
            }
            return found;
        }

        List<List<FragmentTreeMutation>> buckets() {
            List<List<FragmentTreeMutation>> out = new ArrayList<>();
            for (int i = 0; i < children.size(); i++) {
                out.add(new ArrayList<>());
            }
            long[] mins = new long[children.size()];
            for (int i = 0; i < mins.length; i++) {
                mins[i] = children.get(i).minKey();
            }
            for (FragmentTreeMutation m : buffer) {
                long t = Records.target(m.getAction());
                int idx = java.util.Arrays.binarySearch(mins, t);
                idx = idx >= 0 ? idx : Math.max(0, -idx - 2);
                out.get(idx).add(m);
            }
            return out;
        }
    }

    /** Objects written and bases read by one write. */
    final class Session {
        final TreeSnapshot base;
        final ConcurrentLinkedQueue<ObjectLocation> written = new ConcurrentLinkedQueue<>();
        final AtomicLong bytes = new AtomicLong();

        Session() {
            this(null);
        }

        Session(TreeSnapshot base) {
            this.base = base;
        }

        Mono<Void> put(ObjectLocation loc, byte[] data) {
            return env.store().put(loc, data).doOnSuccess(v -> {
                written.add(loc);
                bytes.addAndGet(data.length);
            });
        }

        Result result(FragmentTree tree, List<FragmentTreeMutation> mutations, FragmentTreeRoot root) {
            return new Result(FragmentTreeMetadata.newBuilder().setTree(tree).build(), List.copyOf(written),
                    bytes.get(), mutations, root);
        }

        ChildRef childRef(FragmentTreeChild c, long lo, long hi) {
            Datasets.Owner owner = base.datasets.resolve(base.datasets.current(), c.hasBaseId() ? c.getBaseId() : null);
            return new ChildRef(c, owner, lo, hi);
        }

        /** Content of an interior part: the session's copy, or the stored node (validated). */
        Mono<NodeState> state(Part p, long lo, long hi) {
            if (p.state != null) {
                p.state.lo = lo;
                p.state.hi = hi;
                return Mono.just(p.state);
            }
            ChildRef ref = childRef(p.ref, lo, hi);
            return base.reader.loadNode(ref, new Sequences(Set.of())).map(v -> {
                if (!ref.owner().isCurrent()) {
                    for (FragmentTreeMutation m : v.buffer()) {
                        if (m.getAction().hasUpsertFragment()) {
                            requirePortable(m.getAction().getUpsertFragment(), ref);
                        }
                    }
                }
                List<Part> kids = new ArrayList<>();
                for (ChildRef c : v.children()) {
                    kids.add(new Part(asCurrent(c), null));
                }
                return new NodeState(kids, new ArrayList<>(v.buffer()), lo, hi, p.ref.getHeight() - 1);
            });
        }

        Mono<List<DataFragment>> leaf(Part p, long lo, long hi) {
            if (p.records != null) {
                return Mono.just(p.records);
            }
            ChildRef ref = childRef(p.ref, lo, hi);
            return base.reader.loadLeaf(ref).doOnNext(records -> {
                if (!ref.owner().isCurrent()) {
                    records.forEach(f -> requirePortable(f, ref));
                }
            });
        }

        /**
         * Fragment state copied out of another dataset must not carry ExternalFile references:
         * their paths are relative to that dataset and cannot name it (spec: copy the file and
         * rewrite the path, or fail the write). Javelin does not copy them yet, so it fails.
         */
        private void requirePortable(DataFragment f, ChildRef from) {
            if (f.hasExternalRowIds() || f.hasExternalLastUpdatedAtVersions() || f.hasExternalCreatedAtVersions()) {
                throw new UnsupportedOperationException("fragment " + f.getId() + " in " + from.location()
                        + " names ExternalFile row-id or version sequences, which cannot be preserved in a copy"
                        + " into this dataset");
            }
        }
    }

    // ------------------------------------------------------------------ rewriting

    private Mono<NodeState> rewriteRoot(Session s, NodeState root) {
        Mono<NodeState> start;
        if (root.children.isEmpty()) {
            if (bytes(root.buffer) <= config.bufferBytes()) {
                return Mono.just(root);
            }
            event("materializeRoot");
            List<DataFragment> records = Replay.apply(List.of(), root.buffer, 0);
            long watermark = maxSequence(root.buffer, 0);
            start = writeLeaves(s, records, 0, watermark).map(leaves -> {
                root.children = leaves;
                root.buffer = new ArrayList<>();
                root.childHeight = 0;
                return root;
            });
        } else {
            start = drain(s, root);
        }
        return start.flatMap(r -> fixups(s, r, true)).flatMap(r -> grow(s, r)).flatMap(r -> collapse(s, r));
    }

    private Mono<NodeState> collapse(Session s, NodeState root) {
        if (root.children.size() != 1 || root.childHeight == 0) {
            return Mono.just(root);
        }
        event("collapse");
        return s.state(root.children.getFirst(), 0, TreeReader.KEY_END).flatMap(child -> {
            root.children = child.children;
            root.buffer.addAll(child.buffer);
            root.childHeight = child.childHeight;
            return collapse(s, root);
        });
    }

    /** Adds levels while the root has too many children. */
    private Mono<NodeState> grow(Session s, NodeState root) {
        if (root.children.size() <= config.fanOut() && nodeBytes(root) <= config.maxNodeBytes()) {
            return Mono.just(root);
        }
        if (root.children.size() < 4 && root.children.size() <= config.fanOut()) {
            return Mono.just(root);
        }
        event("grow");
        List<NodeState> chunks = chunks(root, false);
        return Flux.fromIterable(chunks).concatMap(c -> writeInterior(s, c)).collectList().flatMap(parts -> {
            root.children = new ArrayList<>(parts);
            root.childHeight += 1;
            return grow(s, root);
        });
    }

    /** Drains the fullest buckets of an over-budget buffer into the children. */
    private Mono<NodeState> drain(Session s, NodeState n) {
        if (n.children.isEmpty() || n.buffer.isEmpty()) {
            return Mono.just(n);
        }
        boolean pressured = bytes(n.buffer) > config.bufferBytes();
        List<List<FragmentTreeMutation>> buckets = n.buckets();
        if (!pressured) {
            return n.childHeight == 0 ? relaxedDrain(s, n, buckets) : Mono.just(n);
        }
        event(n.childHeight == 0 ? "drainToLeaves" : "drainToInteriors");
        List<Integer> order = new ArrayList<>();
        long[] sizes = new long[buckets.size()];
        long total = 0;
        for (int i = 0; i < buckets.size(); i++) {
            sizes[i] = bytes(buckets.get(i));
            total += sizes[i];
            if (sizes[i] > 0) {
                order.add(i);
            }
        }
        order.sort((a, b) -> Long.compare(sizes[b], sizes[a]));
        TreeSet<Integer> selected = new TreeSet<>();
        long remaining = total;
        for (int i : order) {
            if (remaining <= config.bufferBytes() / 2) {
                break;
            }
            selected.add(i);
            remaining -= sizes[i];
        }
        if (n.childHeight == 0) {
            // Merge small neighbours of rewritten leaves into the same run.
            for (int i : List.copyOf(selected)) {
                for (int j : new int[] {i - 1, i + 1}) {
                    if (j >= 0 && j < n.children.size() && n.children.get(j).ref.getObjectSize() < config.leafMergeBytes()
                            && n.children.get(i).ref.getObjectSize() < config.leafMergeBytes()) {
                        selected.add(j);
                    }
                }
            }
        }
        return drainSelected(s, n, buckets, selected);
    }

    /**
     * Below buffer pressure, leaves whose buffered removals retire at least 1/16 of their records
     * are rewritten anyway, so shrinking tables contract (emptied leaves disappear).
     */
    private Mono<NodeState> relaxedDrain(Session s, NodeState n, List<List<FragmentTreeMutation>> buckets) {
        TreeSet<Integer> selected = new TreeSet<>();
        for (int i = 0; i < buckets.size(); i++) {
            long removed = 0;
            for (FragmentTreeMutation m : buckets.get(i)) {
                removed -= m.getFragmentCountDelta();
            }
            if (removed > 0 && removed * 16 >= n.children.get(i).ref.getNumKeys()) {
                selected.add(i);
            }
        }
        if (selected.isEmpty()) {
            return Mono.just(n);
        }
        event("relaxedDrain");
        return drainSelected(s, n, buckets, selected);
    }

    private Mono<NodeState> drainSelected(Session s, NodeState n, List<List<FragmentTreeMutation>> buckets,
            TreeSet<Integer> selected) {
        List<int[]> runs = new ArrayList<>();
        for (int i : selected) {
            if (n.childHeight == 0 && !runs.isEmpty() && runs.getLast()[1] == i - 1) {
                runs.getLast()[1] = i;
            } else {
                runs.add(new int[] {i, i});
            }
        }
        Flux<List<Part>> rewritten = n.childHeight == 0
                ? Flux.fromIterable(runs).flatMapSequential(run -> rewriteLeaves(s, n, run, buckets),
                        config.leafParallelism())
                : Flux.fromIterable(runs).concatMap(run -> pushDown(s, n, run[0], buckets.get(run[0])));
        return rewritten.collectList().map(results -> {
            List<Part> children = new ArrayList<>();
            int r = 0;
            for (int i = 0; i < n.children.size(); i++) {
                if (r < runs.size() && runs.get(r)[0] == i) {
                    children.addAll(results.get(r));
                    i = runs.get(r)[1];
                    r++;
                } else {
                    children.add(n.children.get(i));
                }
            }
            List<FragmentTreeMutation> kept = new ArrayList<>();
            for (int i = 0; i < buckets.size(); i++) {
                if (!selected.contains(i)) {
                    kept.addAll(buckets.get(i));
                }
            }
            n.children = children;
            n.buffer = kept;
            return n;
        });
    }

    private Mono<List<Part>> rewriteLeaves(Session s, NodeState n, int[] run, List<List<FragmentTreeMutation>> buckets) {
        long runLo = n.children.get(run[0]).minKey();
        event(run[1] > run[0] ? "leafMerge" : "leafRewrite");
        return Flux.range(run[0], run[1] - run[0] + 1).flatMapSequentialDelayError(i -> {
            Part p = n.children.get(i);
            long watermark = p.ref.getMaterializedThroughActionSequence();
            return s.leaf(p, p.minKey(), n.childHi(i)).map(records -> Replay.apply(records, buckets.get(i), watermark));
        }, config.leafParallelism(), 1).onErrorMap(reactor.core.Exceptions::isMultiple, io.javelin.objectstore.internal.FirstError::of)
                .collectList().flatMap(lists -> {
            List<DataFragment> all = new ArrayList<>();
            lists.forEach(all::addAll);
            long watermark = 0;
            for (int i = run[0]; i <= run[1]; i++) {
                watermark = Math.max(watermark, n.children.get(i).ref.getMaterializedThroughActionSequence());
                watermark = maxSequence(buckets.get(i), watermark);
            }
            return writeLeaves(s, all, runLo, watermark);
        });
    }

    /** Pushes a bucket into an interior child and rewrites it. */
    private Mono<List<Part>> pushDown(Session s, NodeState parent, int i, List<FragmentTreeMutation> bucket) {
        Part p = parent.children.get(i);
        return s.state(p, p.minKey(), parent.childHi(i)).flatMap(st -> {
            st.buffer = new ArrayList<>(st.buffer);
            st.buffer.addAll(bucket);
            return rewriteInterior(s, st);
        });
    }

    private Mono<List<Part>> rewriteInterior(Session s, NodeState st) {
        return drain(s, st).flatMap(x -> fixups(s, x, false)).flatMap(x -> emit(s, x));
    }

    /** Writes an interior (split if too large); a node left with one child comes back loose. */
    private Mono<List<Part>> emit(Session s, NodeState st) {
        if (st.children.isEmpty()) {
            if (!st.buffer.isEmpty()) {
                throw new IllegalStateException("emptied interior still buffers mutations");
            }
            return Mono.just(List.of());
        }
        if (st.children.size() == 1) {
            return Mono.just(List.of(new Part(null, st)));
        }
        List<NodeState> chunks = st.children.size() > config.fanOut() || nodeBytes(st) > config.maxNodeBytes()
                ? chunks(st, true) : List.of(st);
        if (chunks.size() > 1) {
            event("split");
        }
        return Flux.fromIterable(chunks).concatMap(c -> writeInterior(s, c)).collectList();
    }

    /** Repairs loose (single-child) interiors and the first child's fence after a drain. */
    private Mono<NodeState> fixups(Session s, NodeState n, boolean isRoot) {
        for (int i = 0; i < n.children.size(); i++) {
            if (!n.children.get(i).loose()) {
                continue;
            }
            Part loose = n.children.get(i);
            if (n.children.size() == 1) {
                if (!isRoot) {
                    return Mono.just(n);
                }
                event("adoptLoose");
                n.children = loose.state.children;
                n.buffer.addAll(loose.state.buffer);
                n.childHeight = loose.state.childHeight;
                return fixups(s, n, true);
            }
            event("mergeLoose");
            int j = i > 0 ? i - 1 : i + 1;
            int left = Math.min(i, j);
            int right = Math.max(i, j);
            final int fi = i;
            List<List<FragmentTreeMutation>> buckets = n.buckets();
            Part other = n.children.get(j);
            return s.state(other, other.minKey(), n.childHi(j)).flatMap(os -> {
                NodeState ls = left == fi ? loose.state : os;
                NodeState rs = left == fi ? os : loose.state;
                List<Part> kids = new ArrayList<>(ls.children);
                kids.addAll(rs.children);
                List<FragmentTreeMutation> buf = new ArrayList<>(ls.buffer);
                buf.addAll(rs.buffer);
                buf.addAll(buckets.get(j));
                NodeState merged = new NodeState(kids, buf, n.children.get(left).minKey(), n.childHi(right),
                        ls.childHeight);
                List<FragmentTreeMutation> kept = new ArrayList<>(n.buffer);
                kept.removeAll(buckets.get(j));
                return rewriteInterior(s, merged).flatMap(parts -> {
                    List<Part> children = new ArrayList<>(n.children.subList(0, left));
                    children.addAll(parts);
                    children.addAll(n.children.subList(right + 1, n.children.size()));
                    n.children = children;
                    n.buffer = kept;
                    return fixups(s, n, isRoot);
                });
            });
        }
        if (!n.children.isEmpty() && n.children.getFirst().minKey() != n.lo) {
            event("lowerFence");
            return lowerFence(s, n.children.getFirst(), n.lo, n.childHi(0)).map(p -> {
                n.children.set(0, p);
                return n;
            });
        }
        return Mono.just(n);
    }

    /** Moves the lower bound of a child down to {@code lo} (its range grows; contents stay valid). */
    private Mono<Part> lowerFence(Session s, Part p, long lo, long hi) {
        if (p.ref != null && p.ref.getHeight() == 0) {
            return Mono.just(new Part(p.ref.toBuilder().setMinKey(lo).build(), null, p.records));
        }
        // Load with the range the stored node was written for, then widen it downwards.
        return s.state(p, p.minKey(), hi).flatMap(st -> {
            st.lo = lo;
            return Mono.just(st);
        }).flatMap(st -> lowerFence(s, st.children.getFirst(), lo, st.childHi(0)).flatMap(first -> {
            st.children = new ArrayList<>(st.children);
            st.children.set(0, first);
            return writeInterior(s, st);
        }));
    }

    /** Splits a node's children into chunks of at most fan-out children and half the node budget. */
    private List<NodeState> chunks(NodeState n, boolean withBuffers) {
        int count = n.children.size();
        int bySize = (int) Math.ceil(nodeBytes(n) / (config.maxNodeBytes() / 2.0));
        int k = Math.max((count + config.fanOut() - 1) / config.fanOut(), bySize);
        k = Math.max(2, Math.min(k, count / 2));
        List<NodeState> out = new ArrayList<>();
        int start = 0;
        for (int c = 0; c < k; c++) {
            int end = start + (count - start) / (k - c);
            List<Part> kids = new ArrayList<>(n.children.subList(start, end));
            long lo = c == 0 ? n.lo : kids.getFirst().minKey();
            long hi = end < count ? n.children.get(end).minKey() : n.hi;
            List<FragmentTreeMutation> buf = new ArrayList<>();
            if (withBuffers) {
                for (FragmentTreeMutation m : n.buffer) {
                    long t = Records.target(m.getAction());
                    if (t >= lo && t < hi) {
                        buf.add(m);
                    }
                }
            }
            out.add(new NodeState(kids, buf, lo, hi, n.childHeight));
            start = end;
        }
        return out;
    }

    // ------------------------------------------------------------------ object writes

    private Mono<Part> writeInterior(Session s, NodeState st) {
        return Mono.defer(() -> {
            FragmentTreeNode.Builder nb = FragmentTreeNode.newBuilder().addAllBuffer(st.buffer);
            for (Part p : st.children) {
                nb.addChildren(p.ref);
            }
            long[] sums = summary(st);
            byte[] bytes = nb.build().toByteArray();
            String path = TreePaths.nodePath(TreeIds.random());
            FragmentTreeChild ref = FragmentTreeChild.newBuilder().setPath(path).setMinKey(st.lo).setNumKeys(sums[0])
                    .setTotalRows(sums[1]).setVisibleRows(sums[2]).setHeight(st.childHeight + 1)
                    .setNumChildren(st.children.size()).setObjectSize(bytes.length).build();
            return s.put(new ObjectLocation("", path), bytes).thenReturn(new Part(ref, st));
        });
    }

    /** Packs sorted records into leaves of at most the leaf target and writes them. */
    private Mono<List<Part>> writeLeaves(Session s, List<DataFragment> records, long lo, long watermark) {
        List<List<DataFragment>> pieces = new ArrayList<>();
        List<DataFragment> current = new ArrayList<>();
        long size = 0;
        for (DataFragment f : records) {
            long est = f.getSerializedSize() + 24L;
            if (!current.isEmpty() && size + est > config.maxLeafBytes()) {
                pieces.add(current);
                current = new ArrayList<>();
                size = 0;
            }
            current.add(f);
            size += est;
        }
        if (!current.isEmpty()) {
            pieces.add(current);
        }
        return Flux.range(0, pieces.size()).flatMapSequential(i -> {
            List<DataFragment> piece = pieces.get(i);
            long min = i == 0 ? lo : piece.getFirst().getId();
            return writeLeaf(s, piece, min, watermark);
        }, config.leafParallelism()).collectList();
    }

    private Mono<Part> writeLeaf(Session s, List<DataFragment> records, long minKey, long watermark) {
        return Mono.defer(() -> {
            byte[] bytes;
            try (LeafArrow.Batch batch = LeafArrow.encode(records, env.allocator())) {
                bytes = env.codec().encode(batch.root(), batch.dictionaries());
            }
            long total = 0;
            long visible = 0;
            for (DataFragment f : records) {
                total += f.getPhysicalRows();
                visible += Records.visibleRows(f);
            }
            String path = TreePaths.leafPath(TreeIds.random());
            FragmentTreeChild ref = FragmentTreeChild.newBuilder().setPath(path).setMinKey(minKey)
                    .setNumKeys(records.size()).setTotalRows(total).setVisibleRows(visible).setHeight(0)
                    .setNumChildren(0).setObjectSize(bytes.length).setMaterializedThroughActionSequence(watermark)
                    .build();
            List<DataFragment> copy = List.copyOf(records);
            return s.put(new ObjectLocation("", path), bytes).then(Mono.fromRunnable(() -> {
                if (env.cache() != null) { // the next reader of this new leaf need not fetch it
                    env.cache().put(env.store().identity(), new ChildRef(ref, Datasets.Owner.CURRENT, minKey,
                            TreeReader.KEY_END), copy);
                }
            })).thenReturn(new Part(ref, null, copy));
        });
    }

    // ------------------------------------------------------------------ sizes

    static long bytes(Collection<FragmentTreeMutation> mutations) {
        long b = 0;
        for (FragmentTreeMutation m : mutations) {
            b += m.getSerializedSize() + 3;
        }
        return b;
    }

    private static long nodeBytes(NodeState n) {
        long b = bytes(n.buffer);
        for (Part p : n.children) {
            b += (p.ref != null ? p.ref.getSerializedSize() : 64) + 3;
        }
        return b;
    }

    private static long maxSequence(Collection<FragmentTreeMutation> mutations, long start) {
        long max = start;
        for (FragmentTreeMutation m : mutations) {
            max = Math.max(max, m.getActionSequence());
        }
        return max;
    }

    private static long[] summary(NodeState n) {
        long[] sums = new long[3];
        for (Part p : n.children) {
            sums[0] += p.ref.getNumKeys();
            sums[1] += p.ref.getTotalRows();
            sums[2] += p.ref.getVisibleRows();
        }
        for (FragmentTreeMutation m : n.buffer) {
            sums[0] += m.getFragmentCountDelta();
            sums[1] += m.getTotalRowsDelta();
            sums[2] += m.getVisibleRowsDelta();
        }
        return sums;
    }
}
