package io.javelin.tx.tree;

import static io.javelin.tx.tree.Shape.bytes;
import static io.javelin.tx.tree.Shape.mut;
import static io.javelin.tx.tree.Shape.rec;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.javelin.tx.pb.AddDataFile;
import io.javelin.tx.pb.BasePath;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DataOverlayFile;
import io.javelin.tx.pb.FragmentAction;
import io.javelin.tx.pb.FragmentTree;
import io.javelin.tx.pb.FragmentTreeChild;
import io.javelin.tx.pb.FragmentTreeMetadata;
import io.javelin.tx.pb.FragmentTreeMutation;
import io.javelin.tx.pb.FragmentTreeNode;
import io.javelin.tx.pb.FragmentTreeRoot;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.ReplaceDataFile;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One case per numbered reader rule of table-format.md §7.1 (and each "must" of spec 000): a valid
 * tree ({@link Shape}) with exactly one property tampered must fail with the typed error naming
 * that rule, never read as empty.
 */
class RuleTest {

    static final String DS = "mem://ds";

    // ---------------------------------------------------------------- tamper factories

    static Shape.Tamper ref(String object, Consumer<FragmentTreeChild.Builder> c) {
        return new Shape.Tamper() {
            @Override
            public void ref(String o, FragmentTreeChild.Builder b) {
                if (o.equals(object)) {
                    c.accept(b);
                }
            }
        };
    }

    static Shape.Tamper node(String object, Consumer<FragmentTreeNode.Builder> c) {
        return new Shape.Tamper() {
            @Override
            public void node(String o, FragmentTreeNode.Builder b) {
                if (o.equals(object)) {
                    c.accept(b);
                }
            }
        };
    }

    static Shape.Tamper records(String leaf, UnaryOperator<List<DataFragment>> f) {
        return new Shape.Tamper() {
            @Override
            public List<DataFragment> records(String o, List<DataFragment> r) {
                return o.equals(leaf) ? f.apply(r) : r;
            }
        };
    }

    static Shape.Tamper batch(String leaf, Consumer<LeafArrow.Batch> c) {
        return new Shape.Tamper() {
            @Override
            public void batch(String o, LeafArrow.Batch b) {
                if (o.equals(leaf)) {
                    c.accept(b);
                }
            }
        };
    }

    static Shape.Tamper schema(String leaf, UnaryOperator<Schema> f) {
        return new Shape.Tamper() {
            @Override
            public Schema schema(String o, Schema s) {
                return o.equals(leaf) ? f.apply(s) : s;
            }
        };
    }

    static Shape.Tamper bytesOf(String object, byte[] replacement) {
        return new Shape.Tamper() {
            @Override
            public byte[] bytes(String o, byte[] b) {
                return o.equals(object) ? replacement : b;
            }
        };
    }

    static Shape.Tamper root(Consumer<FragmentTreeRoot.Builder> c) {
        return new Shape.Tamper() {
            @Override
            public void root(FragmentTreeRoot.Builder b) {
                c.accept(b);
            }
        };
    }

    static Shape.Tamper tree(Consumer<FragmentTree.Builder> c) {
        return new Shape.Tamper() {
            @Override
            public void tree(FragmentTree.Builder b) {
                c.accept(b);
            }
        };
    }

    static Shape.Tamper manifest(Consumer<Manifest.Builder> c) {
        return new Shape.Tamper() {
            @Override
            public void manifest(Manifest.Builder b) {
                c.accept(b);
            }
        };
    }

    static Shape.Tamper both(Shape.Tamper a, Shape.Tamper b) {
        return new Shape.Tamper() {
            @Override
            public List<DataFragment> records(String o, List<DataFragment> r) {
                return b.records(o, a.records(o, r));
            }

            @Override
            public void batch(String o, LeafArrow.Batch x) {
                a.batch(o, x);
                b.batch(o, x);
            }

            @Override
            public void ref(String o, FragmentTreeChild.Builder x) {
                a.ref(o, x);
                b.ref(o, x);
            }

            @Override
            public void manifest(Manifest.Builder x) {
                a.manifest(x);
                b.manifest(x);
            }

            @Override
            public void tree(FragmentTree.Builder x) {
                a.tree(x);
                b.tree(x);
            }
        };
    }

    static FragmentAction addFile(long id) {
        return FragmentAction.newBuilder().setAddDataFile(AddDataFile.newBuilder().setFragId(id)
                .setFile(TreeFixture.file("x.lance", 9))).build();
    }

    static Schema nullableMeta(Schema s) {
        List<Field> fields = new ArrayList<>(s.getFields());
        fields.set(1, new Field("fragment_meta", FieldType.nullable(ArrowType.Binary.INSTANCE), null));
        return new Schema(fields);
    }

    /** Replaces value 0 of a variable-width vector, keeping every other value (setSafe alone would not). */
    static void replace(VarBinaryVector v, byte[] first) {
        int n = v.getValueCount();
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            values[i] = i == 0 ? first : v.isNull(i) ? null : v.get(i);
        }
        v.reset();
        for (int i = 0; i < n; i++) {
            if (values[i] == null) {
                v.setNull(i);
            } else {
                v.setSafe(i, values[i]);
            }
        }
        v.setValueCount(n);
    }

    static StructVector fileItem(LeafArrow.Batch b) {
        return (StructVector) ((ListVector) b.root().getVector("files")).getDataVector();
    }

    static final byte[] GARBAGE = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};

    // ---------------------------------------------------------------- cases

    static Stream<Arguments> cases() {
        return Stream.of(
                c(Rule.R01_FLAGS_AGREE, "writer flag missing", manifest(b -> b.setWriterFeatureFlags(0))),
                c(Rule.R01_FLAGS_AGREE, "flags without fragment_tree", manifest(Manifest.Builder::clearFragmentTree)),
                c(Rule.R01_FLAGS_AGREE, "bit 11 (2048) is not the tree flag", manifest(b -> b.setReaderFeatureFlags(2048)
                        .setWriterFeatureFlags(2048))),
                c(Rule.R02_FRAGMENTS_EMPTY, "flat fragments listed", manifest(b -> b.addFragments(rec(0, 10)))),
                c(Rule.R03_LAYOUT, "no layout", manifest(b -> b.setFragmentTree(FragmentTreeMetadata.getDefaultInstance()))),
                c(Rule.R04_ONE_ROOT, "no root", tree(FragmentTree.Builder::clearRoot)),
                c(Rule.R05_INLINE_NO_SUFFIX, "inline root with suffix",
                        tree(b -> b.setInlineRoot(FragmentTreeRoot.newBuilder().setNextActionSequence(5)))),
                c(Rule.R06_ROOT_UUID, "15-byte uuid", tree(b -> b.setRootUuid(bytes(15)))),
                c(Rule.R06_ROOT_UUID, "17-byte uuid", tree(b -> b.setRootUuid(bytes(17)))),
                c(Rule.R08_OBJECT_ENCODING, "root not a protobuf", bytesOf("root", GARBAGE)),
                c(Rule.R08_OBJECT_ENCODING, "node not a protobuf", bytesOf("N1", GARBAGE)),
                c(Rule.R08_OBJECT_ENCODING, "leaf not decodable", bytesOf("L2", GARBAGE)),
                c(Rule.R09_PATH, "path under data/", ref("L1", b -> b.setPath("data/L1.lance"))),
                c(Rule.R09_PATH, "path escaping _bt/", ref("L1", b -> b.setPath("_bt/../data/L1.lance"))),
                c(Rule.R09_PATH, "absolute path", ref("L1", b -> b.setPath("/_bt/leaf/L1.lance"))),
                c(Rule.R09_PATH, "URI path", ref("N1", b -> b.setPath("s3://b/_bt/node/N1.node"))),
                c(Rule.R10_EMPTY_PATH, "empty path", ref("L1", b -> b.setPath(""))),
                c(Rule.R11_DUPLICATE_CHILD, "same object twice", ref("L3", b -> b.setPath("_bt/leaf/L2.lance"))),
                c(Rule.R11_DUPLICATE_CHILD, "same object through a base id naming this dataset", both(
                        ref("L3", b -> b.setPath("_bt/leaf/L2.lance").setBaseId(0)),
                        manifest(b -> b.addBasePaths(BasePath.newBuilder().setId(0).setIsDatasetRoot(true)
                                .setPath(DS + "/"))))),
                c(Rule.R12_BASE_ID, "unknown base id", ref("L1", b -> b.setBaseId(3))),
                c(Rule.R12_BASE_ID, "base id not a dataset root", both(ref("L1", b -> b.setBaseId(3)),
                        manifest(b -> b.addBasePaths(BasePath.newBuilder().setId(3).setPath("mem://x"))))),
                c(Rule.R12_BASE_ID, "duplicate base path ids", manifest(b -> b
                        .addBasePaths(BasePath.newBuilder().setId(1).setIsDatasetRoot(true).setPath("mem://a"))
                        .addBasePaths(BasePath.newBuilder().setId(1).setIsDatasetRoot(true).setPath("mem://b")))),
                c(Rule.R15_LEAF_SCHEMA, "nullable fragment_meta", schema("L2", RuleTest::nullableMeta)),
                c(Rule.R15_LEAF_SCHEMA, "null in a non-nullable column",
                        batch("L2", b -> ((VarBinaryVector) b.root().getVector("fragment_meta")).setNull(1))),
                c(Rule.R15_LEAF_SCHEMA, "null dictionary value",
                        batch("L0", b -> ((VarBinaryVector) b.dictionaries().lookup(0).getVector()).setNull(0))),
                c(Rule.R16_LEAF_IDS, "ids not increasing", records("L0", r -> List.of(r.get(0), r.get(2), r.get(1)))),
                c(Rule.R16_LEAF_IDS, "duplicate id", records("L0", r -> List.of(r.get(0), r.get(1), r.get(1)))),
                c(Rule.R16_LEAF_IDS, "id beyond u32", records("L3", r -> List.of(rec(1L << 32, 7)))),
                c(Rule.R17_FRAGMENT_META, "fragment_meta with id", batch("L1", b -> replace((VarBinaryVector) b.root()
                        .getVector("fragment_meta"), DataFragment.newBuilder().setId(5).setPhysicalRows(20)
                        .build().toByteArray()))),
                c(Rule.R17_FRAGMENT_META, "fragment_meta with files", batch("L1", b -> replace((VarBinaryVector) b.root()
                        .getVector("fragment_meta"), DataFragment.newBuilder().setPhysicalRows(20)
                        .addFiles(TreeFixture.file("dup", 0)).build().toByteArray()))),
                c(Rule.R19_OVERLAY_META, "overlay_meta with data_file", both(
                        records("L2", r -> List.of(r.get(0).toBuilder().addOverlays(DataOverlayFile.newBuilder()
                                .setDataFile(TreeFixture.file("ov.lance", 0)).setCommittedVersion(3)).build(), r.get(1))),
                        batch("L2", b -> replace((VarBinaryVector) ((StructVector) ((ListVector) b.root().getVector("overlays"))
                                .getDataVector()).getChild("overlay_meta"), DataOverlayFile.newBuilder()
                                .setDataFile(TreeFixture.file("ov.lance", 0)).build().toByteArray())))),
                c(Rule.R20_MAPPING, "mapping bytes not a multiple of 4",
                        batch("L0", b -> replace((VarBinaryVector) b.dictionaries().lookup(0).getVector(), new byte[3]))),
                c(Rule.R20_MAPPING, "fields and column indices differ in length", records("L0", r -> List.of(
                        r.get(0).toBuilder().setFiles(0, r.get(0).getFiles(0).toBuilder().addFields(7)).build(),
                        r.get(1), r.get(2)))),
                c(Rule.R20_MAPPING, "field id -1 stored", records("L0", r -> List.of(
                        r.get(0).toBuilder().setFiles(0, r.get(0).getFiles(0).toBuilder().setFields(0, -1)).build(),
                        r.get(1), r.get(2)))),
                c(Rule.R23_COUNTS, "deletion file without num_deleted_rows", records("L2", r -> List.of(
                        r.get(0).toBuilder().setDeletionFile(Shape.DELETION.toBuilder().setNumDeletedRows(0)).build(),
                        r.get(1)))),
                c(Rule.R23_COUNTS, "mutation deletes more rows than exist", root(b -> b.setBuffer(0, mut(3,
                        FragmentAction.newBuilder().setAddDeletionFile(io.javelin.tx.pb.AddDeletionFile.newBuilder()
                                .setFragId(1).setDeletionFile(Shape.DELETION.toBuilder().setNumDeletedRows(11))).build(),
                        0, 0, -11)))),
                c(Rule.R24_LEAF_SUMMARY, "num_keys above the row count", ref("L2", b -> b.setNumKeys(3))),
                c(Rule.R24_LEAF_SUMMARY, "total_rows off by one", ref("L2", b -> b.setTotalRows(11))),
                c(Rule.R24_LEAF_SUMMARY, "visible_rows off by one", ref("L2", b -> b.setVisibleRows(9))),
                c(Rule.R27_FAN_OUT, "interior with one child", node("N0", b -> b.removeChildren(1))),
                c(Rule.R28_ORDER, "first child not at the range start", ref("L0", b -> b.setMinKey(1))),
                c(Rule.R28_ORDER, "children out of order", ref("L1", b -> b.setMinKey(0))),
                c(Rule.R28_ORDER, "root's first child not at 0", ref("N0", b -> b.setMinKey(2))),
                c(Rule.R30_BUFFER_RANGE, "interior buffer target outside its range",
                        node("N0", b -> b.addBuffer(mut(1, addFile(12), 0, 0, 0)))),
                c(Rule.R31_HEIGHT, "sibling heights differ", ref("L3", b -> b.setHeight(1).setNumChildren(2))),
                c(Rule.R31_HEIGHT, "height overflow", ref("N1", b -> b.setHeight(Integer.MAX_VALUE))),
                c(Rule.R32_LEAF_NONEMPTY, "leaf with children", ref("L3", b -> b.setNumChildren(2))),
                c(Rule.R32_LEAF_NONEMPTY, "empty leaf", records("L3", r -> List.of())),
                c(Rule.R33_NUM_CHILDREN, "num_children disagrees with the node", ref("N1", b -> b.setNumChildren(3))),
                c(Rule.R34_NUM_KEYS, "interior num_keys", ref("N0", b -> b.setNumKeys(b.getNumKeys() + 1))),
                c(Rule.R35_ROWS, "interior total_rows", ref("N1", b -> b.setTotalRows(b.getTotalRows() + 1))),
                c(Rule.R35_ROWS, "interior visible_rows", ref("N1", b -> b.setVisibleRows(b.getVisibleRows() - 1))),
                c(Rule.R35_ROWS, "visible above total", ref("L2", b -> b.setVisibleRows(11))),
                c(Rule.R36_OBJECT_SIZE, "object_size zero", ref("L1", b -> b.setObjectSize(0))),
                c(Rule.R36_OBJECT_SIZE, "leaf object_size overstated", ref("L1", b -> b.setObjectSize(b.getObjectSize() + 1))),
                c(Rule.R36_OBJECT_SIZE, "node object_size understated", ref("N1", b -> b.setObjectSize(b.getObjectSize() - 1))),
                c(Rule.R37_MIN_KEY, "min_key beyond 2^32-1", ref("N1", b -> b.setMinKey(1L << 32))),
                c(Rule.R37_MIN_KEY, "child range outside its parent", ref("L1", b -> b.setMinKey(10))),
                c(Rule.R37_MIN_KEY, "min_key beyond 2^63", ref("L3", b -> b.setMinKey(-5))),
                c(Rule.R38_LEAF_RANGE, "leaf id below its range", records("L1", r -> List.of(rec(3, 20), r.get(1)))),
                c(Rule.R38_LEAF_RANGE, "leaf id at its range end", records("L1", r -> List.of(r.get(0), rec(10, 20)))),
                c(Rule.R39_ACTION, "mutation without action", root(b -> b.setBuffer(0, b.getBuffer(0).toBuilder().clearAction()))),
                c(Rule.R39_ACTION, "unrecognized action", root(b -> b.setBuffer(0, b.getBuffer(0).toBuilder()
                        .setAction(FragmentAction.getDefaultInstance())))),
                c(Rule.R39_ACTION, "add_data_file without payload", root(b -> b.setBuffer(0, mut(3, FragmentAction
                        .newBuilder().setAddDataFile(AddDataFile.newBuilder().setFragId(0)).build(), 0, 0, 0)))),
                c(Rule.R40_DELTAS, "buffered delta misstated", root(b -> b.setBuffer(0, b.getBuffer(0).toBuilder()
                        .setVisibleRowsDelta(-3)))),
                c(Rule.R40_DELTAS, "suffix delta misstated", tree(b -> b.setMutationsSinceRoot(0,
                        b.getMutationsSinceRoot(0).toBuilder().setTotalRowsDelta(8)))),
                c(Rule.R40_DELTAS, "interior delta misstated", node("N1", b -> b.setBuffer(0,
                        b.getBuffer(0).toBuilder().setFragmentCountDelta(0)))),
                c(Rule.R43_MISSING_FRAGMENT, "file added to a missing fragment",
                        root(b -> b.setBuffer(0, mut(3, addFile(3), 0, 0, 0)))),
                c(Rule.R44_REPLACE_SLOT, "replacement of a missing path", root(b -> b.setBuffer(0, mut(3, FragmentAction
                        .newBuilder().setReplaceDataFile(ReplaceDataFile.newBuilder().setFragId(0).setExpectedPath("nope")
                                .setPath("new")).build(), 0, 0, 0)))),
                c(Rule.R46_DERIVED_COUNTS, "derived fragment count negative", tree(b -> b.setMutationsSinceRoot(0,
                        b.getMutationsSinceRoot(0).toBuilder().setFragmentCountDelta(-100)))),
                c(Rule.R47_SEQUENCE, "sequence zero", root(b -> b.setBuffer(0, b.getBuffer(0).toBuilder().setActionSequence(0)))),
                c(Rule.R47_SEQUENCE, "sequence repeated across buffers", node("N0", b -> b.setBuffer(0,
                        b.getBuffer(0).toBuilder().setActionSequence(3)))),
                c(Rule.R47_SEQUENCE, "sequence repeated in the suffix", tree(b -> b.addMutationsSinceRoot(
                        b.getMutationsSinceRoot(0).toBuilder().setAction(addFile(20)).setFragmentCountDelta(0)
                                .setTotalRowsDelta(0).setVisibleRowsDelta(0)))),
                c(Rule.R48_ROOT_SEQUENCE, "root next_action_sequence 0", root(b -> b.setNextActionSequence(0))),
                c(Rule.R48_ROOT_SEQUENCE, "root buffer at root next", root(b -> b.setBuffer(0,
                        b.getBuffer(0).toBuilder().setActionSequence(7)))),
                c(Rule.R48_ROOT_SEQUENCE, "leaf watermark at root next", ref("L1", b -> b.setMaterializedThroughActionSequence(5))),
                c(Rule.R49_SUFFIX_SEQUENCE, "tree next below root next", tree(b -> b.setNextActionSequence(4))),
                c(Rule.R49_SUFFIX_SEQUENCE, "suffix below root next", tree(b -> b.setMutationsSinceRoot(0,
                        b.getMutationsSinceRoot(0).toBuilder().setActionSequence(1)))),
                c(Rule.R50_WATERMARK, "interior with a watermark", ref("N1", b -> b.setMaterializedThroughActionSequence(2))),
                c(Rule.R51_BELOW_WATERMARK, "root mutation at its leaf watermark",
                        root(b -> b.addBuffer(mut(1, addFile(0), 0, 0, 0)))),
                c(Rule.R51_BELOW_WATERMARK, "leaf-parent mutation at its leaf watermark",
                        node("N0", b -> b.addBuffer(mut(1, addFile(0), 0, 0, 0)))),
                c(Rule.R53_MAX_FRAGMENT_ID, "suffix target above max_fragment_id", manifest(b -> b.setMaxFragmentId(20))),
                c(Rule.R53_MAX_FRAGMENT_ID, "leaf id above max_fragment_id", both(manifest(b -> b.setMaxFragmentId(19)),
                        tree(FragmentTree.Builder::clearMutationsSinceRoot))),
                c(Rule.R53_MAX_FRAGMENT_ID, "records without max_fragment_id", manifest(Manifest.Builder::clearMaxFragmentId)),
                c(Rule.R53_MAX_FRAGMENT_ID, "suffix target beyond 2^63", tree(b -> b.setMutationsSinceRoot(0,
                        b.getMutationsSinceRoot(0).toBuilder().setAction(FragmentAction.newBuilder()
                                .setRemoveFragment(-1)).setFragmentCountDelta(0).setTotalRowsDelta(0)
                                .setVisibleRowsDelta(0)))));
    }

    static Arguments c(Rule rule, String name, Shape.Tamper tamper) {
        return Arguments.of(rule, name, tamper);
    }

    /** Opens, lists and resolves every id: a corrupt snapshot must fail somewhere, with the right rule. */
    static void readEverything(TreeFixture fx, Manifest m) {
        TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
        s.fragments().collectList().block();
        for (long id = 0; id <= 25; id++) {
            s.resolve(id).block();
        }
        s.treeObjects().block();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("cases")
    void tamperedPropertyIsRejected(Rule rule, String name, Shape.Tamper tamper) {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small())) {
            Manifest m = new Shape(fx, tamper).manifest();
            assertThatThrownBy(() -> readEverything(fx, m)).isInstanceOfSatisfying(CorruptSnapshotException.class,
                    e -> assertThat(e.rule()).as(e.getMessage()).isEqualTo(rule));
        }
    }

    @Test
    void everyRuleHasACase() {
        List<Rule> covered = cases().map(a -> (Rule) a.get()[0]).distinct().toList();
        assertThat(covered).containsExactlyInAnyOrder(Rule.values());
    }

    // ---------------------------------------------------------------- positive baselines

    @Test
    void validShapeResolvesFromEveryMutationSource() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small())) {
            Manifest m = new Shape(fx, Shape.NONE).manifest();
            TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
            assertThat(s.fragments().collectList().block()).isEqualTo(Shape.expected());
            assertThat(s.fragmentCount()).isEqualTo(8);
            assertThat(s.totalRows()).isEqualTo(89);
            assertThat(s.visibleRows()).isEqualTo(87);
            for (DataFragment f : Shape.expected()) {
                assertThat(s.resolve(f.getId()).block()).contains(f);
            }
            assertThat(s.resolve(11).block()).isEmpty();
            assertThat(s.resolve(3).block()).isEmpty();
            assertThat(s.treeObjects().block()).extracting(ObjectLocation::path).containsExactlyInAnyOrder(
                    "_bt/root/" + Shape.ROOT + ".root", "_bt/node/N0.node", "_bt/node/N1.node",
                    "_bt/leaf/L0.lance", "_bt/leaf/L1.lance", "_bt/leaf/L2.lance", "_bt/leaf/L3.lance");
        }
    }

    @Test
    void corruptionOutsideTheRoutingPathIsNotRead() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small())) {
            Manifest m = new Shape(fx, bytesOf("L1", GARBAGE)).manifest();
            TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
            assertThat(s.resolve(10).block()).contains(rec(10, 5));
            assertThatThrownBy(() -> s.resolve(5).block()).isInstanceOf(CorruptSnapshotException.class);
            assertThatThrownBy(() -> s.fragments().collectList().block()).isInstanceOf(CorruptSnapshotException.class);
        }
    }

    @Test
    void foreignLeafInheritsItsDatasetOnFileReferences() {
        Shape.Tamper foreign = new Shape.Tamper() {
            @Override
            public String dataset(String object) {
                return object.equals("L1") ? "mem://other" : "";
            }

            @Override
            public void ref(String o, FragmentTreeChild.Builder b) {
                if (o.equals("L1")) {
                    b.setBaseId(4);
                }
            }

            @Override
            public void manifest(Manifest.Builder b) {
                b.addBasePaths(BasePath.newBuilder().setId(4).setIsDatasetRoot(true).setPath("mem://other"));
            }
        };
        try (TreeFixture fx = new TreeFixture(TreeFixture.small())) {
            Manifest m = new Shape(fx, foreign).manifest();
            TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
            DataFragment five = s.resolve(5).block().orElseThrow();
            // Leaf files inherit the leaf's dataset; the buffered file added in this dataset does not.
            assertThat(five.getFiles(0).getBaseId()).isEqualTo(4);
            assertThat(five.getFiles(1).getBaseId()).isEqualTo(4);
            assertThat(five.getFiles(2).hasBaseId()).isFalse();
            assertThat(s.resolve(0).block().orElseThrow().getFiles(0).hasBaseId()).isFalse();
            assertThat(s.referencedFiles().block()).contains(new ObjectLocation("mem://other", "data/f5-0.lance"),
                    new ObjectLocation("", "data/extra.lance"));
            assertThat(s.treeObjects().block()).contains(new ObjectLocation("mem://other", "_bt/leaf/L1.lance"));
        }
    }

    /** N0 and its leaves live in another dataset; N0's reference names it, its children inherit it. */
    static final Shape.Tamper FOREIGN_N0 = new Shape.Tamper() {
        @Override
        public String dataset(String object) {
            return object.equals("N0") || object.equals("L0") || object.equals("L1") ? "mem://other" : "";
        }

        @Override
        public void ref(String o, FragmentTreeChild.Builder b) {
            if (o.equals("N0")) {
                b.setBaseId(4);
            }
        }

        @Override
        public void manifest(Manifest.Builder b) {
            b.addBasePaths(BasePath.newBuilder().setId(4).setIsDatasetRoot(true).setPath("mem://other"));
        }
    };

    @Test
    void foreignInteriorBufferAndDescendantsInheritItsDataset() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small())) {
            Manifest m = new Shape(fx, FOREIGN_N0).manifest();
            TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
            DataFragment five = s.resolve(5).block().orElseThrow();
            assertThat(five.getFilesList()).extracting(DataFile::getBaseId).containsExactly(4, 4, 4);
            assertThat(s.resolve(10).block().orElseThrow().getFiles(0).hasBaseId()).isFalse();
            assertThat(s.treeObjects().block()).contains(new ObjectLocation("mem://other", "_bt/node/N0.node"),
                    new ObjectLocation("mem://other", "_bt/leaf/L0.lance"), new ObjectLocation("", "_bt/leaf/L2.lance"));
        }
    }

    @Test
    void writerNeverModifiesForeignObjectsAndStampsWhatItCopies() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small().withBufferBytes(10).withSuffixBytes(0))) {
            Manifest m = new Shape(fx, FOREIGN_N0).manifest();
            TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
            List<DataFragment> before = s.fragments().collectList().block();
            java.util.Map<ObjectLocation, byte[]> foreign = new java.util.HashMap<>();
            for (ObjectLocation l : fx.store.locations()) {
                if (!l.dataset().isEmpty()) {
                    foreign.put(l, fx.store.peek(l));
                }
            }
            TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Remove(6)), 25).block();
            assertThat(r.written()).isNotEmpty().allMatch(l -> l.dataset().isEmpty());
            foreign.forEach((l, b) -> assertThat(fx.store.peek(l)).isEqualTo(b));
            List<DataFragment> expected = new ArrayList<>(before);
            expected.removeIf(f -> f.getId() == 6);
            // Same base paths: base id 4 must still resolve in the new version.
            TreeSnapshot reopened = TreeSnapshot.open(fx.env, Manifest.newBuilder(m).setFragmentTree(r.metadata())
                    .build(), DS).block();
            assertThat(reopened.fragments().collectList().block()).isEqualTo(expected);
            assertThat(fx.writer.events()).containsKey("drainToInteriors");
        }
    }

    @Test
    void copyingForeignExternalFilesFailsTheWrite() {
        Shape.Tamper withExternal = new Shape.Tamper() {
            @Override
            public List<DataFragment> records(String o, List<DataFragment> r) {
                if (!o.equals("L1")) {
                    return r;
                }
                return List.of(r.get(0), r.get(1).toBuilder().setExternalRowIds(io.javelin.tx.pb.ExternalFile
                        .newBuilder().setPath("_rowids/6.bin").setSize(8)).build());
            }

            @Override
            public String dataset(String o) {
                return FOREIGN_N0.dataset(o);
            }

            @Override
            public void ref(String o, FragmentTreeChild.Builder b) {
                FOREIGN_N0.ref(o, b);
            }

            @Override
            public void manifest(Manifest.Builder b) {
                FOREIGN_N0.manifest(b);
            }
        };
        try (TreeFixture fx = new TreeFixture(TreeFixture.small().withBufferBytes(10).withSuffixBytes(0))) {
            Manifest m = new Shape(fx, withExternal).manifest();
            TreeSnapshot s = TreeSnapshot.open(fx.env, m, DS).block();
            int before = fx.store.size();
            assertThatThrownBy(() -> fx.writer.commit(s, List.of(new FragmentEdit.Remove(5)), 25).block())
                    .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("ExternalFile");
            // Reading is fine: the reference resolves in the leaf's own dataset.
            assertThat(s.resolve(6).block().orElseThrow().hasExternalRowIds()).isTrue();
            assertThat(fx.store.size()).isGreaterThanOrEqualTo(before);
        }
    }

    @Test
    void resultsDoNotDependOnSerializationOrder() {
        try (TreeFixture fx = new TreeFixture(TreeFixture.small().withSuffixBytes(100_000))) {
            TreeSnapshot s = fx.build(TreeFixture.frags(50));
            List<FragmentEdit> edits = List.of(
                    new FragmentEdit.AddFile(3, TreeFixture.file("a.lance", 3)),
                    new FragmentEdit.ReplaceFile(3, "a.lance", "b.lance", 5, null),
                    new FragmentEdit.AddFile(3, TreeFixture.file("a.lance", 4)),
                    new FragmentEdit.Put(TreeFixture.withDeletes(TreeFixture.frags(50).get(4), 3, 1)));
            FragmentTreeMetadata meta = fx.writer.commit(s, edits, 49).block().metadata();
            List<DataFragment> expected = fx.list(fx.open(meta, 49));
            List<FragmentTreeMutation> reversed = new ArrayList<>(meta.getTree().getMutationsSinceRootList());
            assertThat(reversed).hasSize(4);
            java.util.Collections.reverse(reversed);
            FragmentTreeMetadata shuffled = meta.toBuilder().setTree(meta.getTree().toBuilder()
                    .clearMutationsSinceRoot().addAllMutationsSinceRoot(reversed)).build();
            assertThat(fx.list(fx.open(shuffled, 49))).isEqualTo(expected);
            assertThat(expected.get(3).getFilesList()).extracting(DataFile::getPath)
                    .containsExactly("f3-0.lance", "f3-1.lance", "b.lance", "a.lance");
        }
    }

    @Test
    void rootUuidUsesDisplayOrder() {
        ByteString b = TreePaths.toBytes(Shape.ROOT);
        assertThat(b.byteAt(0)).isEqualTo((byte) 0x01);
        assertThat(TreePaths.rootPath(b)).isEqualTo("_bt/root/01234567-89ab-cdef-0123-456789abcdef.root");
    }
}
