package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DataOverlayFile;
import io.javelin.tx.pb.ExternalFile;
import java.util.List;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.Test;

/** The Arrow leaf layout of spec 000 and its round trip. */
class LeafTest {

    @Test
    void schemaIsExactlyTheSpecifiedOne() {
        assertThat(LeafSchema.SCHEMA.getFields()).extracting(Field::getName)
                .containsExactly("id", "fragment_meta", "files", "overlays");
        assertThat(LeafSchema.SCHEMA.getFields()).allMatch(f -> !f.isNullable());
        Field dataFile = LeafSchema.SCHEMA.findField("files").getChildren().getFirst();
        assertThat(dataFile.getName()).isEqualTo("item");
        assertThat(dataFile.isNullable()).isFalse();
        assertThat(dataFile.getChildren()).extracting(Field::getName).containsExactly("path", "field_ids",
                "column_indices", "major_version", "minor_version", "file_size_bytes", "base_id");
        assertThat(dataFile.getChildren()).extracting(Field::isNullable)
                .containsExactly(false, false, false, false, false, false, true);
        assertThat(dataFile.getChildren().get(1).getDictionary().getIndexType()).isEqualTo(new ArrowType.Int(32, true));
        assertThat(dataFile.getChildren().get(0).getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
        assertThat(dataFile.getChildren().get(5).getType()).isEqualTo(new ArrowType.Int(64, false));
        Field overlay = LeafSchema.SCHEMA.findField("overlays").getChildren().getFirst();
        assertThat(overlay.getChildren()).extracting(Field::getName).containsExactly("data_file", "overlay_meta");
        assertThat(LeafSchema.SCHEMA.findField("id").getType()).isEqualTo(new ArrowType.Int(64, false));
    }

    @Test
    void roundTripPreservesOrderDuplicatesOverlaysAndMappings() {
        DataFile dup = TreeFixture.file("same.lance", 0);
        DataFile v21 = DataFile.newBuilder().setPath("nested.lance").addFields(0).addFields(1).addFields(2)
                .addColumnIndices(0).addColumnIndices(-1).addColumnIndices(1).setFileMajorVersion(2)
                .setFileMinorVersion(1).setBaseId(0).build();
        DataFile legacy = DataFile.newBuilder().setPath("legacy.lance").addFields(4).build();
        DataFile empty = DataFile.newBuilder().setPath("tomb.lance").setFileMajorVersion(2).setFileMinorVersion(0)
                .setFileSizeBytes(0).build();
        DataFile unknownVersion = TreeFixture.file("v17.lance", 3).toBuilder().setFileMajorVersion(17)
                .setFileMinorVersion(42).build();
        DataFragment a = DataFragment.newBuilder().setId(3).setPhysicalRows(0).addFiles(dup).addFiles(v21)
                .addFiles(dup).addFiles(legacy).addFiles(empty).addFiles(unknownVersion)
                .addOverlays(DataOverlayFile.newBuilder().setDataFile(TreeFixture.file("o3.lance", 1))
                        .setCommittedVersion(3))
                .addOverlays(DataOverlayFile.newBuilder().setDataFile(TreeFixture.file("o1.lance", 1))
                        .setCommittedVersion(1))
                .setExternalRowIds(ExternalFile.newBuilder().setPath("rows.bin").setOffset(4).setSize(8)).build();
        DataFragment b = TreeFixture.withDeletes(TreeFixture.frag(9, 50, 2), 50, 3);
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults());
                LeafArrow.Batch batch = LeafArrow.encode(List.of(a, b), fx.allocator)) {
            byte[] bytes = fx.env.codec().encode(batch.root(), batch.dictionaries());
            try (LeafCodec.Decoded d = fx.env.codec().decode(bytes, fx.allocator).block()) {
                assertThat(LeafArrow.decode(d.root(), d.dictionaries(), fx.datasets.current())).containsExactly(a, b);
            }
        }
    }

    @Test
    void dictionaryKeysAreLocalToEachLeaf() {
        DataFile x = TreeFixture.file("x", 0);
        DataFile y = DataFile.newBuilder().setPath("y").addFields(7).addColumnIndices(0).setFileMajorVersion(2)
                .setFileMinorVersion(1).build();
        DataFragment one = DataFragment.newBuilder().setId(1).setPhysicalRows(1).addFiles(x).addFiles(y).build();
        DataFragment two = DataFragment.newBuilder().setId(2).setPhysicalRows(1).addFiles(y).addFiles(x).build();
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults())) {
            for (List<DataFragment> leaf : List.of(List.of(one), List.of(two), List.of(one, two))) {
                try (LeafArrow.Batch batch = LeafArrow.encode(leaf, fx.allocator)) {
                    byte[] bytes = fx.env.codec().encode(batch.root(), batch.dictionaries());
                    try (LeafCodec.Decoded d = fx.env.codec().decode(bytes, fx.allocator).block()) {
                        assertThat(LeafArrow.decode(d.root(), d.dictionaries(), fx.datasets.current()))
                                .isEqualTo(leaf);
                    }
                }
            }
        }
    }

    @Test
    void leafIsALanceFileDeclaringDictionaryMappings() {
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults());
                LeafArrow.Batch batch = LeafArrow.encode(TreeFixture.frags(5), fx.allocator)) {
            byte[] bytes = fx.env.codec().encode(batch.root(), batch.dictionaries());
            assertThat(new String(bytes, bytes.length - 4, 4, java.nio.charset.StandardCharsets.US_ASCII)).isEqualTo("LANC");
            var md = io.javelin.encoding.file.LanceFileReader.readMetadata(
                    new io.javelin.encoding.io.MemorySource("leaf", bytes)).block();
            assertThat(md.numRows()).isEqualTo(5);
            java.util.Map<String, String> types = new java.util.LinkedHashMap<>();
            io.javelin.encoding.pb.file.FileDescriptor fd;
            for (var f : md.fields()) {
                collect(f, "", types);
            }
            assertThat(types).containsEntry("id", "uint64").containsEntry("fragment_meta", "binary")
                    .containsEntry("files", "list.struct").containsEntry("files.item.field_ids", "dict:binary:int32:false")
                    .containsEntry("files.item.column_indices", "dict:binary:int32:false")
                    .containsEntry("overlays.item.data_file.field_ids", "dict:binary:int32:false")
                    .containsEntry("files.item.base_id", "uint32");
        }
    }

    private static void collect(io.javelin.encoding.file.LanceField f, String prefix, java.util.Map<String, String> out) {
        out.put(prefix + f.name(), f.logicalType());
        for (var c : f.children()) {
            collect(c, prefix + f.name() + ".", out);
        }
    }

    @Test
    void dictionaryKeyOutOfBoundsIsCorrupt() {
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults());
                LeafArrow.Batch batch = LeafArrow.encode(TreeFixture.frags(2), fx.allocator)) {
            var item = (org.apache.arrow.vector.complex.StructVector) ((org.apache.arrow.vector.complex.ListVector)
                    batch.root().getVector("files")).getDataVector();
            ((org.apache.arrow.vector.IntVector) item.getChild("field_ids")).set(0, 99);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> LeafArrow.decode(batch.root(), batch.dictionaries(),
                    fx.datasets.current())).isInstanceOfSatisfying(CorruptSnapshotException.class,
                            e -> assertThat(e.rule()).isEqualTo(Rule.R20_MAPPING));
            // Our Lance files cannot carry such a key: the codec refuses to write it.
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> fx.env.codec().encode(batch.root(),
                    batch.dictionaries())).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
