package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Mono;

/**
 * Decodes tree objects of one snapshot and validates every rule that can be checked with the
 * object and its parent reference in hand. Nothing else is read to validate an object.
 */
final class TreeReader {

    static final long KEY_END = 1L << 32;
    private static final int MAX_HEIGHT = 64;

    final TreeEnv env;
    final Datasets datasets;
    /** Manifest.max_fragment_id, or -1 when absent. */
    final long maxFragmentId;
    /** FragmentTreeRoot.next_action_sequence of the snapshot's root. */
    final long rootNext;

    TreeReader(TreeEnv env, Datasets datasets, long maxFragmentId, long rootNext) {
        this.env = env;
        this.datasets = datasets;
        this.maxFragmentId = maxFragmentId;
        this.rootNext = rootNext;
    }

    /** Checks a mutation found in any buffer or suffix: action, sequence, target bounds. */
    long checkMutation(FragmentTreeMutation m, Sequences seqs) {
        long target = Records.checkAction(m);
        seqs.add(m.getActionSequence());
        check(target >= 0 && target <= maxFragmentId, Rule.R53_MAX_FRAGMENT_ID,
                "mutation %d targets fragment %d above max_fragment_id %d", m.getActionSequence(), target,
                maxFragmentId);
        return target;
    }

    /**
     * Validates a child list and buffer of a root ({@code parent == null}) or an interior.
     *
     * @param height the node's height, or -1 for the root (derived from its children)
     */
    NodeView validateNode(List<FragmentTreeChild> children, List<FragmentTreeMutation> buffer, Datasets.Owner owner,
            long lo, long hi, int height, FragmentTreeChild parent, Sequences seqs) {
        boolean root = parent == null;
        if (!root) {
            check(children.size() >= 2, Rule.R27_FAN_OUT, "interior has %d children", children.size());
        }
        int childHeight = root ? (children.isEmpty() ? 0 : children.getFirst().getHeight()) : height - 1;
        check(childHeight >= 0 && childHeight < MAX_HEIGHT, Rule.R31_HEIGHT, "child height %d", childHeight);
        List<ChildRef> refs = new ArrayList<>(children.size());
        Set<ObjectLocation> locations = new HashSet<>();
        for (int i = 0; i < children.size(); i++) {
            FragmentTreeChild c = children.get(i);
            TreePaths.checkChildPath(c.getPath());
            Datasets.Owner o = datasets.resolve(owner, c.hasBaseId() ? c.getBaseId() : null);
            check(locations.add(datasets.locate(o, c.getPath())), Rule.R11_DUPLICATE_CHILD,
                    "child %s appears twice", datasets.locate(o, c.getPath()));
            long min = c.getMinKey();
            check(Long.compareUnsigned(min, KEY_END) < 0, Rule.R37_MIN_KEY, "min_key %s exceeds 2^32-1",
                    Long.toUnsignedString(min));
            if (i == 0) {
                check(min == lo, Rule.R28_ORDER, "first child min_key %d is not the range start %d", min, lo);
            } else {
                check(min > children.get(i - 1).getMinKey(), Rule.R28_ORDER, "child min_key %d not above %d", min,
                        children.get(i - 1).getMinKey());
            }
            check(min < hi, Rule.R37_MIN_KEY, "child min_key %d outside parent range end %d", min, hi);
            check(c.getHeight() == childHeight, Rule.R31_HEIGHT, "child height %d, expected %d", c.getHeight(),
                    childHeight);
            check(c.getObjectSize() > 0, Rule.R36_OBJECT_SIZE, "child %s has object_size 0", c.getPath());
            check(c.getTotalRows() >= 0 && c.getNumKeys() >= 0, Rule.R35_ROWS, "child %s has counts beyond 2^63",
                    c.getPath());
            check(c.getVisibleRows() >= 0 && c.getVisibleRows() <= c.getTotalRows(), Rule.R35_ROWS, "child %s visible_rows %d > total_rows %d",
                    c.getPath(), c.getVisibleRows(), c.getTotalRows());
            if (childHeight == 0) {
                check(c.getNumChildren() == 0, Rule.R32_LEAF_NONEMPTY, "leaf %s has num_children %d", c.getPath(),
                        c.getNumChildren());
                check(c.getNumKeys() >= 1, Rule.R32_LEAF_NONEMPTY, "leaf %s has no records", c.getPath());
                check(c.getMaterializedThroughActionSequence() < rootNext, Rule.R48_ROOT_SEQUENCE,
                        "leaf watermark %d not below root next_action_sequence %d",
                        c.getMaterializedThroughActionSequence(), rootNext);
            } else {
                check(c.getNumChildren() >= 2, Rule.R27_FAN_OUT, "interior %s has num_children %d", c.getPath(),
                        c.getNumChildren());
                check(c.getMaterializedThroughActionSequence() == 0, Rule.R50_WATERMARK,
                        "interior %s has watermark %d", c.getPath(), c.getMaterializedThroughActionSequence());
            }
            long end = i + 1 < children.size() ? Math.min(children.get(i + 1).getMinKey(), hi) : hi;
            refs.add(new ChildRef(c, o, min, end));
        }
        NodeView view = new NodeView(List.copyOf(refs), buffer, lo, hi, root && children.isEmpty() ? 1 : childHeight + 1);
        long keys = 0;
        long total = 0;
        long visible = 0;
        for (FragmentTreeChild c : children) {
            keys += c.getNumKeys();
            total += c.getTotalRows();
            visible += c.getVisibleRows();
        }
        for (FragmentTreeMutation m : buffer) {
            long target = checkMutation(m, seqs);
            check(m.getActionSequence() < rootNext, Rule.R48_ROOT_SEQUENCE,
                    "buffered sequence %d not below root next_action_sequence %d", m.getActionSequence(), rootNext);
            check(target >= lo && target < hi, Rule.R30_BUFFER_RANGE, "buffered target %d outside [%d, %d)", target,
                    lo, hi);
            if (!refs.isEmpty()) {
                ChildRef owning = refs.get(view.route(target));
                if (owning.isLeaf()) {
                    check(m.getActionSequence() > owning.child().getMaterializedThroughActionSequence(),
                            Rule.R51_BELOW_WATERMARK, "mutation %d at or below watermark %d of its leaf",
                            m.getActionSequence(), owning.child().getMaterializedThroughActionSequence());
                }
            }
            keys += m.getFragmentCountDelta();
            total += m.getTotalRowsDelta();
            visible += m.getVisibleRowsDelta();
        }
        if (parent != null) {
            check(keys == parent.getNumKeys(), Rule.R34_NUM_KEYS, "num_keys %d, children and buffer give %d",
                    parent.getNumKeys(), keys);
            check(total == parent.getTotalRows() && visible == parent.getVisibleRows(), Rule.R35_ROWS,
                    "rows (%d,%d), children and buffer give (%d,%d)", parent.getTotalRows(), parent.getVisibleRows(),
                    total, visible);
        }
        return view;
    }

    /** Fetches and validates an interior. */
    Mono<NodeView> loadNode(ChildRef ref, Sequences seqs) {
        return env.store().get(ref.location()).map(bytes -> decodeNode(ref, bytes, seqs));
    }

    NodeView decodeNode(ChildRef ref, byte[] bytes, Sequences seqs) {
        FragmentTreeChild c = ref.child();
        check(bytes.length == c.getObjectSize(), Rule.R36_OBJECT_SIZE, "%s has %d bytes, reference says %d",
                ref.location(), bytes.length, c.getObjectSize());
        FragmentTreeNode node;
        try {
            node = FragmentTreeNode.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, ref.location() + " is not a FragmentTreeNode", e);
        }
        check(node.getChildrenCount() == c.getNumChildren(), Rule.R33_NUM_CHILDREN,
                "%s has %d children, reference says %d", ref.location(), node.getChildrenCount(), c.getNumChildren());
        List<FragmentTreeMutation> buffer = node.getBufferList();
        List<FragmentTreeChild> children = node.getChildrenList();
        if (!ref.owner().isCurrent()) {
            int base = ref.owner().baseId();
            buffer = buffer.stream().map(m -> stamp(m, base)).toList();
        }
        NodeView view = validateNode(children, buffer, ref.owner(), ref.lo(), ref.hi(), c.getHeight(), c, seqs);
        return view;
    }

    /** Fetches, decodes and validates a leaf; returns its records in id order. */
    Mono<List<DataFragment>> loadLeaf(ChildRef ref) {
        LeafCache cache = env.cache();
        if (cache != null) {
            List<DataFragment> hit = cache.get(env.store().identity(), ref);
            if (hit != null) {
                return Mono.fromCallable(() -> checkLeaf(ref, hit));
            }
        }
        return env.store().get(ref.location()).flatMap(bytes -> decodeLeaf(ref, bytes)).doOnNext(records -> {
            if (cache != null) {
                cache.put(env.store().identity(), ref, records);
            }
        });
    }

    /**
     * The records of {@code ids} in a leaf (absent ids skipped), for point resolution: a cached
     * leaf, else a ranged read of just their rows when the codec reads objects of this size in
     * ranges (the tail, the id column and one page per column; not cached: it is partial), else the
     * whole leaf. Ids are at most max_fragment_id (R53), which bounds the last leaf's range (its
     * inherited upper bound is 2^32). A ranged read checks every record it decodes and the record count; the leaf's
     * row summaries (R24) need every record and are checked when the whole leaf is read.
     */
    Mono<List<DataFragment>> loadLeafRows(ChildRef ref, java.util.SortedSet<Long> ids) {
        LeafCache cache = env.cache();
        if (cache != null && cache.get(env.store().identity(), ref) != null) {
            return loadLeaf(ref);
        }
        FragmentTreeChild c = ref.child();
        if (!env.codec().readsRanges(c.getObjectSize())) {
            return loadLeaf(ref);
        }
        return Mono.defer(() -> {
            TreeObjectSource source = new TreeObjectSource(env.store(), ref.location(), c.getObjectSize());
            Mono<List<DataFragment>> decode = Mono.usingWhen(
                    env.codec().decodeRows(source, ids, ref.lo(),
                            Math.min(ref.hi(), maxFragmentId + 1), c.getNumKeys(), env.allocator()),
                    d -> Mono.fromCallable(() -> checkRecords(ref, records(ref, d))),
                    d -> Mono.fromRunnable(d::close));
            return Mono.<List<DataFragment>>create(sink -> decode.subscribe(sink::success, sink::error));
        });
    }

    Mono<List<DataFragment>> decodeLeaf(ChildRef ref, byte[] bytes) {
        return Mono.defer(() -> {
            FragmentTreeChild c = ref.child();
            check(bytes.length == c.getObjectSize(), Rule.R36_OBJECT_SIZE, "%s has %d bytes, reference says %d",
                    ref.location(), bytes.length, c.getObjectSize());
            // Detached from the caller's cancellation: the decoded batch is always closed by this
            // pipeline, so a cancelled scan can never strand Arrow memory mid-decode.
            Mono<List<DataFragment>> decode = Mono.usingWhen(env.codec().decode(bytes, env.allocator()),
                    d -> Mono.fromCallable(() -> checkLeaf(ref, records(ref, d))),
                    d -> Mono.fromRunnable(d::close));
            return Mono.<List<DataFragment>>create(sink -> decode.subscribe(sink::success, sink::error));
        });
    }

    private static List<DataFragment> records(ChildRef ref, LeafCodec.Decoded d) {
        try {
            return LeafArrow.decode(d.root(), d.dictionaries(), ref.owner());
        } catch (IndexOutOfBoundsException | NegativeArraySizeException | ClassCastException | IllegalArgumentException | IllegalStateException e) {
            // a structurally valid batch whose values point outside their buffers or dictionaries
            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, ref.location() + " does not decode: " + e, e);
        }
    }

    /** Per-record rules of a (possibly partial) leaf: range, max id, strictly increasing ids. */
    private List<DataFragment> checkRecords(ChildRef ref, List<DataFragment> records) {
        long prev = -1;
        for (DataFragment f : records) {
            check(ref.contains(f.getId()), Rule.R38_LEAF_RANGE, "leaf %s stores id %d outside [%d, %d)",
                    ref.location(), f.getId(), ref.lo(), ref.hi());
            check(f.getId() <= maxFragmentId, Rule.R53_MAX_FRAGMENT_ID, "leaf id %d above max_fragment_id %d",
                    f.getId(), maxFragmentId);
            check(f.getId() > prev, Rule.R16_LEAF_IDS, "leaf %s ids not increasing at %d", ref.location(), f.getId());
            prev = f.getId();
        }
        return records;
    }

    private List<DataFragment> checkLeaf(ChildRef ref, List<DataFragment> records) {
        FragmentTreeChild c = ref.child();
        check(!records.isEmpty(), Rule.R32_LEAF_NONEMPTY, "leaf %s has no records", ref.location());
        long total = 0;
        long visible = 0;
        for (DataFragment f : records) {
            check(ref.contains(f.getId()), Rule.R38_LEAF_RANGE, "leaf %s stores id %d outside [%d, %d)",
                    ref.location(), f.getId(), ref.lo(), ref.hi());
            check(f.getId() <= maxFragmentId, Rule.R53_MAX_FRAGMENT_ID, "leaf id %d above max_fragment_id %d",
                    f.getId(), maxFragmentId);
            total += f.getPhysicalRows();
            visible += Records.visibleRows(f);
        }
        check(records.size() == c.getNumKeys(), Rule.R24_LEAF_SUMMARY, "leaf %s has %d rows, num_keys %d",
                ref.location(), records.size(), c.getNumKeys());
        check(total == c.getTotalRows() && visible == c.getVisibleRows(), Rule.R24_LEAF_SUMMARY,
                "leaf %s has rows (%d,%d), reference says (%d,%d)", ref.location(), total, visible,
                c.getTotalRows(), c.getVisibleRows());
        return records;
    }

    /** Makes file references of a mutation from a foreign object explicit (null base_id inherits it). */
    static FragmentTreeMutation stamp(FragmentTreeMutation m, int baseId) {
        FragmentAction a = m.getAction();
        FragmentAction.Builder b = a.toBuilder();
        switch (a.getActionCase()) {
            case UPSERT_FRAGMENT -> b.setUpsertFragment(stamp(a.getUpsertFragment(), baseId));
            case ADD_DATA_FILE -> b.setAddDataFile(a.getAddDataFile().toBuilder()
                    .setFile(stamp(a.getAddDataFile().getFile(), baseId)));
            case ADD_DELETION_FILE -> {
                if (!a.getAddDeletionFile().getDeletionFile().hasBaseId()) {
                    b.setAddDeletionFile(a.getAddDeletionFile().toBuilder().setDeletionFile(
                            a.getAddDeletionFile().getDeletionFile().toBuilder().setBaseId(baseId)));
                }
            }
            case REPLACE_DATA_FILE -> {
                if (!a.getReplaceDataFile().hasBaseId()) {
                    b.setReplaceDataFile(a.getReplaceDataFile().toBuilder().setBaseId(baseId));
                }
            }
            default -> {
                return m;
            }
        }
        return m.toBuilder().setAction(b).build();
    }

    static DataFragment stamp(DataFragment f, int baseId) {
        DataFragment.Builder b = f.toBuilder();
        for (int i = 0; i < b.getFilesCount(); i++) {
            b.setFiles(i, stamp(b.getFiles(i), baseId));
        }
        for (int i = 0; i < b.getOverlaysCount(); i++) {
            b.setOverlays(i, b.getOverlays(i).toBuilder().setDataFile(stamp(b.getOverlays(i).getDataFile(), baseId)));
        }
        if (b.hasDeletionFile() && !b.getDeletionFile().hasBaseId()) {
            b.setDeletionFile(b.getDeletionFile().toBuilder().setBaseId(baseId));
        }
        return b.build();
    }

    static DataFile stamp(DataFile f, int baseId) {
        return f.hasBaseId() ? f : f.toBuilder().setBaseId(baseId).build();
    }
}
