package io.javelin.tx.tree;

import com.google.protobuf.ByteString;
import io.javelin.tx.pb.AddDataFile;
import io.javelin.tx.pb.AddDeletionFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeNode;
import io.javelin.tx.pb.FragmentTreeRoot;
import io.javelin.tx.pb.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * A hand-built, valid tree of height 2 with mutations in every kind of buffer, whose every object
 * passes through a {@link Tamper} hook so a test can break exactly one property.
 *
 * <pre>
 * manifest: max_fragment_id 25, external root, suffix [5: upsert 21 (rows 7)], next 6
 * root (next 5): buffer [3: add_deletion_file 1 (2 rows)]
 *   N0 [0,10): buffer [2: add_data_file 5]
 *     L0 [0,4) wm 1: 0, 1, 2        L1 [4,10): 5, 6
 *   N1 [10,2^32): buffer [4: remove_fragment 11]
 *     L2 [10,15): 10, 11           L3 [15,2^32): 20
 * </pre>
 */
final class Shape {

    static final UUID ROOT = UUID.fromString("01234567-89ab-cdef-0123-456789abcdef");

    /** Hooks to tamper with one object or field; all default to the identity. */
    interface Tamper {
        default List<DataFragment> records(String leaf, List<DataFragment> r) {
            return r;
        }

        default Schema schema(String leaf, Schema s) {
            return s;
        }

        default void batch(String leaf, LeafArrow.Batch b) {
        }

        default byte[] bytes(String object, byte[] b) {
            return b;
        }

        default void ref(String object, FragmentTreeChild.Builder b) {
        }

        default void node(String object, FragmentTreeNode.Builder b) {
        }

        default void root(FragmentTreeRoot.Builder b) {
        }

        default void tree(FragmentTree.Builder b) {
        }

        default void manifest(Manifest.Builder b) {
        }

        /** Dataset root an object is stored in ("" = the current dataset). */
        default String dataset(String object) {
            return "";
        }
    }

    static final Tamper NONE = new Tamper() {
    };

    private final TreeFixture fx;
    private final Tamper t;

    Shape(TreeFixture fx, Tamper t) {
        this.fx = fx;
        this.t = t;
    }

    static DataFragment rec(long id, long rows) {
        return TreeFixture.frag(id, rows, 1 + (int) (id % 2));
    }

    static FragmentTreeMutation mut(long seq, FragmentAction a, long fc, long tr, long vr) {
        return FragmentTreeMutation.newBuilder().setActionSequence(seq).setAction(a).setFragmentCountDelta(fc)
                .setTotalRowsDelta(tr).setVisibleRowsDelta(vr).build();
    }

    static final DeletionFile DELETION = DeletionFile.newBuilder().setReadVersion(3).setId(9).setNumDeletedRows(2)
            .build();

    static FragmentTreeMutation rootBufferMutation() {
        return mut(3, FragmentAction.newBuilder().setAddDeletionFile(AddDeletionFile.newBuilder().setFragId(1)
                .setDeletionFile(DELETION)).build(), 0, 0, -2);
    }

    static FragmentTreeMutation n0Mutation() {
        return mut(2, FragmentAction.newBuilder().setAddDataFile(AddDataFile.newBuilder().setFragId(5)
                .setFile(TreeFixture.file("extra.lance", 5))).build(), 0, 0, 0);
    }

    static FragmentTreeMutation n1Mutation() {
        return mut(4, FragmentAction.newBuilder().setRemoveFragment(11).build(), -1, -5, -5);
    }

    static FragmentTreeMutation suffixMutation() {
        return mut(5, FragmentAction.newBuilder().setUpsertFragment(rec(21, 7)).build(), 1, 7, 7);
    }

    /** The fragment state the valid shape resolves to. */
    static List<DataFragment> expected() {
        List<DataFragment> out = new ArrayList<>();
        out.add(rec(0, 10));
        out.add(rec(1, 10).toBuilder().setDeletionFile(DELETION).build());
        out.add(rec(2, 10));
        out.add(rec(5, 20).toBuilder().addFiles(TreeFixture.file("extra.lance", 5)).build());
        out.add(rec(6, 20));
        out.add(rec(10, 5));
        out.add(rec(20, 7));
        out.add(rec(21, 7));
        return out;
    }

    Manifest manifest() {
        FragmentTreeChild l0 = leaf("L0", List.of(rec(0, 10), rec(1, 10), rec(2, 10)), 0, 1);
        FragmentTreeChild l1 = leaf("L1", List.of(rec(5, 20), rec(6, 20)), 4, 0);
        FragmentTreeChild l2 = leaf("L2", List.of(rec(10, 5), rec(11, 5)), 10, 0);
        FragmentTreeChild l3 = leaf("L3", List.of(rec(20, 7)), 15, 0);
        FragmentTreeChild n0 = node("N0", 0, List.of(l0, l1), List.of(n0Mutation()));
        FragmentTreeChild n1 = node("N1", 10, List.of(l2, l3), List.of(n1Mutation()));
        FragmentTreeRoot.Builder rb = FragmentTreeRoot.newBuilder().addChildren(n0).addChildren(n1)
                .addBuffer(rootBufferMutation()).setNextActionSequence(5);
        t.root(rb);
        byte[] rootBytes = t.bytes("root", rb.build().toByteArray());
        fx.store.put(new ObjectLocation("", "_bt/root/" + ROOT + ".root"), rootBytes).block();
        FragmentTree.Builder tb = FragmentTree.newBuilder().setRootUuid(TreePaths.toBytes(ROOT))
                .addMutationsSinceRoot(suffixMutation()).setNextActionSequence(6);
        t.tree(tb);
        Manifest.Builder mb = Manifest.newBuilder().setVersion(7).setMaxFragmentId(25)
                .setReaderFeatureFlags(TreeSnapshot.FLAG_FRAGMENT_TREE)
                .setWriterFeatureFlags(TreeSnapshot.FLAG_FRAGMENT_TREE)
                .setFragmentTree(FragmentTreeMetadata.newBuilder().setTree(tb));
        t.manifest(mb);
        return mb.build();
    }

    FragmentTreeChild leaf(String name, List<DataFragment> records, long minKey, long watermark) {
        List<DataFragment> recs = t.records(name, records);
        byte[] bytes;
        try (LeafArrow.Batch b = LeafArrow.encode(recs, fx.allocator, t.schema(name, LeafSchema.SCHEMA))) {
            t.batch(name, b);
            bytes = fx.env.codec().encode(b.root(), b.dictionaries());
        }
        bytes = t.bytes(name, bytes);
        String path = "_bt/leaf/" + name + ".lance";
        fx.store.put(new ObjectLocation(t.dataset(name), path), bytes).block();
        long total = 0;
        long visible = 0;
        for (DataFragment f : recs) {
            total += f.getPhysicalRows();
            visible += Records.visibleRows(f);
        }
        FragmentTreeChild.Builder ref = FragmentTreeChild.newBuilder().setPath(path).setMinKey(minKey)
                .setNumKeys(recs.size()).setTotalRows(total).setVisibleRows(visible).setObjectSize(bytes.length)
                .setMaterializedThroughActionSequence(watermark);
        t.ref(name, ref);
        return ref.build();
    }

    FragmentTreeChild node(String name, long minKey, List<FragmentTreeChild> children,
            List<FragmentTreeMutation> buffer) {
        FragmentTreeNode.Builder nb = FragmentTreeNode.newBuilder().addAllChildren(children).addAllBuffer(buffer);
        t.node(name, nb);
        FragmentTreeNode n = nb.build();
        byte[] bytes = t.bytes(name, n.toByteArray());
        String path = "_bt/node/" + name + ".node";
        fx.store.put(new ObjectLocation(t.dataset(name), path), bytes).block();
        long keys = 0;
        long total = 0;
        long visible = 0;
        for (FragmentTreeChild c : n.getChildrenList()) {
            keys += c.getNumKeys();
            total += c.getTotalRows();
            visible += c.getVisibleRows();
        }
        for (FragmentTreeMutation m : n.getBufferList()) {
            keys += m.getFragmentCountDelta();
            total += m.getTotalRowsDelta();
            visible += m.getVisibleRowsDelta();
        }
        FragmentTreeChild.Builder ref = FragmentTreeChild.newBuilder().setPath(path).setMinKey(minKey)
                .setNumKeys(keys).setTotalRows(total).setVisibleRows(visible).setHeight(1)
                .setNumChildren(n.getChildrenCount()).setObjectSize(bytes.length);
        t.ref(name, ref);
        return ref.build();
    }

    static ByteString bytes(int n) {
        return ByteString.copyFrom(new byte[n]);
    }
}
