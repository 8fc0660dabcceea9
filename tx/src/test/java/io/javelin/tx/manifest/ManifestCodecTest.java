package io.javelin.tx.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.CorruptManifestException;
import io.javelin.tx.Golden;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.TxException;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestCodecTest {

    static final String V6 = "_versions/18446744073709551609.manifest";

    static List<String> goldenManifests() {
        return Golden.files(Golden.VERSIONS_DELETES, "_versions").stream().filter(p -> p.endsWith(".manifest")).toList();
    }

    @Test
    void decodesEveryGoldenManifest() {
        for (String p : goldenManifests()) {
            ManifestFile mf = ManifestCodec.decode(p, Golden.bytes(Golden.VERSIONS_DELETES, p));
            assertThat(mf.version()).isBetween(1L, 6L);
            assertThat(mf.transaction()).as("inline transaction of %s", p).isNotNull();
            assertThat(mf.indexSection()).isNull();
            assertThat(mf.manifest().getWriterVersion().getLibrary()).isEqualTo("lance");
            assertThat(mf.manifest().getWriterVersion().getVersion()).isEqualTo("7.0.0");
            assertThat(mf.manifest().getDataFormat().getVersion()).isEqualTo("2.1");
            assertThat(mf.manifest().hasMaxFragmentId()).isTrue();
            assertThat(mf.manifest().getTransactionFile()).endsWith(".txn").startsWith(mf.transaction().getReadVersion() + "-");
        }
    }

    @Test
    void goldenVersion6() {
        byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, V6);
        ManifestFile mf = ManifestCodec.decode(V6, bytes);
        assertThat(mf.size()).isEqualTo(734);
        assertThat(mf.version()).isEqualTo(6);
        assertThat(mf.manifest().getTransactionSection()).isZero();
        assertThat(mf.manifest().getReaderFeatureFlags()).isEqualTo(FeatureFlags.DELETION_FILES);
        assertThat(mf.manifest().getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
        assertThat(mf.transaction().getOperationCase()).isEqualTo(Transaction.OperationCase.DELETE);
        assertThat(mf.transaction().getReadVersion()).isEqualTo(5);
    }

    @Test
    void reEncodingGoldenManifestsIsByteIdentical() {
        for (String p : goldenManifests()) {
            byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, p);
            ManifestFile mf = ManifestCodec.decode(p, bytes);
            byte[] again = ManifestCodec.encode(mf.manifest(), mf.indexSection(), mf.transaction());
            assertThat(again).as(p).isEqualTo(bytes);
        }
    }

    @Test
    void roundTripsIndexSectionAndTransaction() {
        IndexSection idx = IndexSection.newBuilder().addIndices(IndexMetadata.newBuilder().setName("id_idx").addFields(0)
                .setDatasetVersion(1)).build();
        Transaction txn = Transaction.newBuilder().setReadVersion(1).setUuid("u")
                .setAppend(Transaction.Append.getDefaultInstance()).build();
        Manifest m = Manifest.newBuilder().setVersion(2).setMaxFragmentId(0).build();
        byte[] bytes = ManifestCodec.encode(m, idx, txn);
        ManifestFile mf = ManifestCodec.decode("x", bytes);
        assertThat(mf.indexSection()).isEqualTo(idx);
        assertThat(mf.transaction()).isEqualTo(txn);
        assertThat(mf.manifest().getIndexSection()).isZero();
        assertThat(mf.manifest().getTransactionSection()).isEqualTo(4 + idx.getSerializedSize());
        // footer: pos | 0 | 2 | LANC
        ByteBuffer footer = ByteBuffer.wrap(bytes, bytes.length - 16, 16).order(ByteOrder.LITTLE_ENDIAN);
        long pos = footer.getLong();
        assertThat(footer.getShort()).isZero();
        assertThat(footer.getShort()).isEqualTo((short) 2);
        assertThat(pos).isEqualTo(8 + idx.getSerializedSize() + txn.getSerializedSize());
        // without sections both offsets are absent, not 0
        ManifestFile bare = ManifestCodec.decode("y", ManifestCodec.encode(m, null, null));
        assertThat(bare.manifest().hasIndexSection()).isFalse();
        assertThat(bare.manifest().hasTransactionSection()).isFalse();
    }

    @Test
    void everyTruncationIsATypedCorruption() {
        byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, V6);
        for (int len = 0; len < bytes.length; len++) {
            byte[] head = Arrays.copyOf(bytes, len);
            byte[] tail = Arrays.copyOfRange(bytes, bytes.length - len, bytes.length);
            for (byte[] cut : List.of(head, tail)) {
                assertThatThrownBy(() -> ManifestCodec.decode(V6, cut)).isInstanceOf(TxException.class)
                        .hasMessageContaining("path=" + V6);
            }
        }
        assertThatThrownBy(() -> ManifestCodec.decode(V6, new byte[3]))
                .isInstanceOf(CorruptManifestException.class).hasMessageContaining("smaller than 16 bytes");
    }

    /** Random byte mutations of every golden manifest: each either decodes or fails typed, never otherwise. */
    @Test
    void mutatedManifestsFailTyped() {
        java.util.Random rnd = new java.util.Random(2026);
        int typed = 0;
        for (String p : goldenManifests()) {
            byte[] good = Golden.bytes(Golden.VERSIONS_DELETES, p);
            for (int i = 0; i < 500; i++) {
                byte[] bad = good.clone();
                for (int k = 1 + rnd.nextInt(3); k > 0; k--) {
                    bad[rnd.nextInt(bad.length)] = (byte) rnd.nextInt(256);
                }
                try {
                    ManifestCodec.decode(p, bad);
                } catch (TxException e) {
                    typed++;
                }
            }
        }
        assertThat(typed).isPositive();
    }

    @Test
    void wrongMagic() {
        byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, V6);
        bytes[bytes.length - 1] = 'D';
        assertThatThrownBy(() -> ManifestCodec.decode(V6, bytes)).isInstanceOf(CorruptManifestException.class)
                .hasMessage("Manifest magic number does not match (expected LANC) (path=" + V6 + ", offset=730)");
    }

    @Test
    void positionOutOfRange() {
        for (long pos : new long[] {-1, 731, 715, Long.MAX_VALUE}) {
            byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, V6);
            ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(bytes.length - 16, pos);
            assertThatThrownBy(() -> ManifestCodec.decode(V6, bytes)).isInstanceOf(CorruptManifestException.class)
                    .satisfies(e -> assertThat(((CorruptManifestException) e).offset()).isIn(718L, pos));
        }
    }

    @Test
    void manifestMustEndAtFooter() {
        byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, V6);
        byte[] padded = new byte[bytes.length + 1];
        System.arraycopy(bytes, 0, padded, 0, bytes.length - 16);
        System.arraycopy(bytes, bytes.length - 16, padded, bytes.length - 15, 16); // one stray byte before the footer
        assertThatThrownBy(() -> ManifestCodec.decode(V6, padded)).isInstanceOf(CorruptManifestException.class)
                .hasMessageContaining("Manifest length does not match").hasMessageContaining("offset=181");
    }

    @Test
    void garbageProtobuf() {
        byte[] body = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f}; // invalid tag/varint
        ByteBuffer b = ByteBuffer.allocate(4 + body.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(body.length).put(body).putLong(0).putShort((short) 0).putShort((short) 2).put("LANC".getBytes());
        assertThatThrownBy(() -> ManifestCodec.decode("g", b.array())).isInstanceOf(CorruptManifestException.class)
                .hasMessageStartingWith("Invalid protobuf").hasMessageEndingWith("(path=g, offset=4)");
    }

    @Test
    void sectionOffsetsOutOfRange() {
        Manifest m = Manifest.newBuilder().setVersion(1).setTransactionSection(999).build();
        byte[] bytes = frame(m);
        assertThatThrownBy(() -> ManifestCodec.decode("s", bytes)).isInstanceOf(CorruptManifestException.class)
                .hasMessageContaining("transaction section offset out of range").hasMessageContaining("offset=999");
        Manifest m2 = Manifest.newBuilder().setVersion(1).setIndexSection(0).build(); // points at the manifest itself
        assertThatThrownBy(() -> ManifestCodec.decode("s", frame(m2))).isInstanceOf(CorruptManifestException.class)
                .hasMessageContaining("index section");
    }

    @Test
    void unknownReaderFlagsAreRefused() {
        java.util.Map<Long, String> named = java.util.Map.of(64L, "64 (data overlay files)", 128L, "128 (covered index metadata)",
                1024L, "1024 (fragment reuse index)", 8192L, "8192", 1L << 63, Long.toUnsignedString(1L << 63));
        named.forEach((flag, text) -> {
            byte[] bytes = ManifestCodec.encode(Manifest.newBuilder().setVersion(3).setReaderFeatureFlags(1 | flag).build(), null, null);
            assertThatThrownBy(() -> ManifestCodec.decode("f", bytes)).isInstanceOf(UnsupportedFeatureException.class)
                    .hasMessageContaining("cannot be read").hasMessageContaining("feature flag " + text + ", not implemented");
        });
        // 256 (mixed data file versions) is read, as a pair only
        ManifestCodec.decode("ok", ManifestCodec.encode(Manifest.newBuilder().setVersion(3).setReaderFeatureFlags(256)
                .setWriterFeatureFlags(256).build(), null, null));
        FeatureFlags.checkWritable(Manifest.newBuilder().setVersion(3).setWriterFeatureFlags(256).setReaderFeatureFlags(256).build());
        byte[] half = ManifestCodec.encode(Manifest.newBuilder().setVersion(3).setReaderFeatureFlags(256).build(), null, null);
        assertThatThrownBy(() -> ManifestCodec.decode("f", half))
                .isInstanceOf(io.javelin.tx.InvalidTableMetadataException.class).hasMessageContaining("only one of the mixed");
        // a data file in Lance file format 2.3 (sparse pages) is refused by name, before any read
        byte[] v23 = ManifestCodec.encode(Manifest.newBuilder().setVersion(3).addFragments(DataFragment.newBuilder()
                .addFiles(io.javelin.tx.pb.DataFile.newBuilder().setPath("a.lance").setFileMajorVersion(2).setFileMinorVersion(3)))
                .build(), null, null);
        assertThatThrownBy(() -> ManifestCodec.decode("f", v23)).isInstanceOf(UnsupportedFeatureException.class)
                .hasMessageContaining("Lance file format 2.3 (sparse page layout)");
        // known reader bits and unknown WRITER bits still read
        ManifestCodec.decode("ok", ManifestCodec.encode(Manifest.newBuilder().setVersion(3).setReaderFeatureFlags(63)
                .setWriterFeatureFlags(1 << 20).build(), null, null));
        Manifest w = Manifest.newBuilder().setVersion(3).setWriterFeatureFlags(1 << 20).build();
        assertThatThrownBy(() -> FeatureFlags.checkWritable(w)).isInstanceOf(UnsupportedFeatureException.class);
        // 4096 (fragment tree) is known, but must agree with the fragment_tree field in both words
        byte[] flagOnly = ManifestCodec.encode(Manifest.newBuilder().setVersion(3).setReaderFeatureFlags(4096)
                .setWriterFeatureFlags(4096).build(), null, null);
        assertThatThrownBy(() -> ManifestCodec.decode("f", flagOnly))
                .isInstanceOf(io.javelin.tx.InvalidTableMetadataException.class).hasMessageContaining("disagree");
    }

    @Test
    void featureFlagsAreRecomputed() {
        Manifest.Builder b = Manifest.newBuilder().addFragments(DataFragment.newBuilder().setDeletionFile(
                io.javelin.tx.pb.DeletionFile.newBuilder().setNumDeletedRows(1))).putConfig("k", "v");
        FeatureFlags.apply(b, false);
        assertThat(b.getReaderFeatureFlags()).isEqualTo(1);
        assertThat(b.getWriterFeatureFlags()).isEqualTo(1 | 8);
        b.clearFragments().clearConfig().addBasePaths(io.javelin.tx.pb.BasePath.newBuilder().setId(1).setPath("s3://x"));
        FeatureFlags.apply(b, true);
        assertThat(b.getReaderFeatureFlags()).isEqualTo(2 | 16);
        assertThat(b.getWriterFeatureFlags()).isEqualTo(2 | 16);
        // mixed data file versions is sticky once both words carry it
        b.setReaderFeatureFlags(256).setWriterFeatureFlags(256);
        FeatureFlags.apply(b, false);
        assertThat(b.getReaderFeatureFlags()).isEqualTo(16 | 256);
        assertThat(b.getWriterFeatureFlags()).isEqualTo(16 | 256);
    }

    @Test
    void hostileFragments() {
        DataFragment f0 = frag(0, "a.lance");
        DataFragment f1 = frag(1, "b.lance");
        assertInvalid(m(f1, f0), "Fragment ids out of order at 0");
        // an old writer's duplicate ids are read (as lance-core does), never written
        assertThat(ManifestCodec.decode("h", ManifestCodec.encode(m(f0, f0), null, null)).manifest().getFragmentsCount()).isEqualTo(2);
        assertThatThrownBy(() -> ManifestValidator.validate(m(f0, f0), "new"))
                .isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("Duplicate fragment id 0");
        assertInvalid(Manifest.newBuilder().setVersion(2).setMaxFragmentId(0).addFragments(f0).addFragments(f1).build(),
                "exceeds max_fragment_id 0");
        for (String bad : List.of("../x.lance", "/etc/passwd", "a/../../b", "s3://bucket/x", "C:\\x", "", "./a", "a//b")) {
            assertInvalid(m(frag(0, bad)), "Data file");
        }
        DataFragment over = f0.toBuilder().setPhysicalRows(10)
                .setDeletionFile(io.javelin.tx.pb.DeletionFile.newBuilder().setNumDeletedRows(11)).build();
        assertInvalid(m(over), "deletes 11 of 10 rows");
        DataFragment unknownBase = f0.toBuilder().setFiles(0, f0.getFiles(0).toBuilder().setBaseId(7)).build();
        assertInvalid(m(unknownBase), "unknown base id 7");
        DataFragment mismatch = f0.toBuilder().setFiles(0, f0.getFiles(0).toBuilder().addFields(5)).build();
        assertInvalid(m(mismatch), "column indices");
        assertInvalid(m().toBuilder().setTransactionFile("../../x.txn").build(), "Transaction file");
    }

    private static void assertInvalid(Manifest m, String message) {
        byte[] bytes = ManifestCodec.encode(m, null, null);
        assertThatThrownBy(() -> ManifestCodec.decode("h", bytes)).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining(message).hasMessageContaining("path=h");
    }

    static DataFragment frag(long id, String path) {
        return DataFragment.newBuilder().setId(id).setPhysicalRows(10).addFiles(DataFile.newBuilder().setPath(path)
                .addFields(0).addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1)).build();
    }

    private static Manifest m(DataFragment... fragments) {
        return Manifest.newBuilder().setVersion(2).setMaxFragmentId(5).addAllFragments(List.of(fragments)).build();
    }

    private static byte[] frame(Manifest m) {
        byte[] body = m.toByteArray();
        ByteBuffer b = ByteBuffer.allocate(4 + body.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(body.length).put(body).putLong(0).putShort((short) 0).putShort((short) 2).put("LANC".getBytes());
        return b.array();
    }
}
