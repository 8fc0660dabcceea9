package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.javelin.testing.FuzzSweep;
import io.javelin.tx.CorruptFileException;
import io.javelin.tx.CorruptManifestException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.deletion.ArrowDeletionCodec;
import io.javelin.tx.deletion.BitmapDeletionCodec;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.schema.ArrowSchemas;
import io.javelin.tx.schema.LanceSchema;
import io.javelin.tx.transaction.TransactionFiles;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

/**
 * Fuzzes the table-format decoders of untrusted bytes: manifest files (framing, protobuf, validator,
 * schema), transaction files and both deletion-file formats. Contract: decode or fail with the
 * module's typed exceptions; bounded allocation and time (see {@link FuzzSweep}).
 *
 * <p>CI: Jazzer replays {@code TxDecoderFuzzTestInputs/<method>/} (Lance 7.0.0 files and minimized
 * findings) and the {@code sweep*} tests run seeded mutants. Coverage-guided, one target per run:
 * {@code JAZZER_FUZZ=1 ./mvnw -o -pl tx -am test -Dtest=TxDecoderFuzzTest#manifest -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class TxDecoderFuzzTest {

    // ------------------------------------------------------------------ harnesses

    static void decodeManifest(byte[] bytes) {
        ManifestFile mf;
        try {
            mf = ManifestCodec.decode("fuzz.manifest", bytes);
            // what opening a table does next with a decoded manifest
            Map<String, byte[]> md = new LinkedHashMap<>();
            mf.manifest().getSchemaMetadataMap().forEach((k, v) -> md.put(k, v.toByteArray()));
            LanceSchema schema = LanceSchema.fromProto(mf.manifest().getFieldsList(), md);
            ArrowSchemas.toArrow(schema);
            for (DataFragment f : mf.manifest().getFragmentsList()) {
                if (f.hasDeletionFile()) {
                    DeletionFiles.path(f.getId(), f.getDeletionFile());
                }
            }
        } catch (CorruptManifestException | InvalidTableMetadataException | UnsupportedFeatureException
                 | CorruptFileException e) {
            throw new FuzzSweep.Rejected(e);
        }
        assertThat(mf.manifest()).isNotNull();
    }

    static void decodeTransaction(byte[] bytes) {
        try {
            Transaction t = TransactionFiles.decode("fuzz.txn", bytes);
            assertThat(t).isNotNull();
        } catch (CorruptFileException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    static void decodeArrowDeletion(byte[] bytes) {
        try {
            RoaringBitmap b = ArrowDeletionCodec.read("fuzz.arrow", bytes);
            assertThat(b).isNotNull();
        } catch (CorruptFileException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    static void decodeBitmapDeletion(byte[] bytes) {
        try {
            RoaringBitmap b = BitmapDeletionCodec.read("fuzz.bin", bytes);
            assertThat(b).isNotNull();
        } catch (CorruptFileException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    // ------------------------------------------------------------------ Jazzer entry points

    @FuzzTest(maxDuration = "5m")
    void manifest(byte[] bytes) {
        quiet(() -> decodeManifest(bytes));
    }

    @FuzzTest(maxDuration = "5m")
    void transaction(byte[] bytes) {
        quiet(() -> decodeTransaction(bytes));
    }

    @FuzzTest(maxDuration = "5m")
    void arrowDeletion(byte[] bytes) {
        quiet(() -> decodeArrowDeletion(bytes));
    }

    @FuzzTest(maxDuration = "5m")
    void bitmapDeletion(byte[] bytes) {
        quiet(() -> decodeBitmapDeletion(bytes));
    }

    /** Under Jazzer a typed rejection is a normal outcome, not a finding. */
    static void quiet(Runnable r) {
        try {
            r.run();
        } catch (FuzzSweep.Rejected expected) {
            // typed error: fine
        }
    }

    // ------------------------------------------------------------------ CI sweeps

    static List<byte[]> seeds(String method, List<byte[]> extra) {
        List<byte[]> out = new ArrayList<>(FuzzSweep.corpus(TxDecoderFuzzTest.class, method));
        out.addAll(extra);
        return out;
    }

    /** Files our own writers produce, next to Lance's. */
    static List<byte[]> writerManifests() {
        Manifest m = Manifest.newBuilder().setVersion(7).setMaxFragmentId(3).setWriterVersion(
                        io.javelin.tx.pb.Manifest.WriterVersion.newBuilder().setLibrary("javelin").setVersion("0.1.0"))
                .addFields(io.javelin.encoding.pb.file.Field.newBuilder().setName("id").setId(0).setParentId(-1)
                        .setLogicalType("int64").setType(io.javelin.encoding.pb.file.Field.Type.LEAF))
                .addFragments(DataFragment.newBuilder().setId(3).setPhysicalRows(100)
                        .addFiles(DataFile.newBuilder().setPath("a.lance").addFields(0).addColumnIndices(0)
                                .setFileMajorVersion(2).setFileMinorVersion(1)))
                .setTransactionFile("6-0c0c0c0c-0000-0000-0000-000000000000.txn")
                .build();
        return List.of(ManifestCodec.encode(m, null, null));
    }

    static List<byte[]> writerDeletions(boolean arrow) {
        RoaringBitmap small = RoaringBitmap.bitmapOf(0, 5, 17, 4095, 70_000);
        RoaringBitmap dense = new RoaringBitmap();
        dense.add(0L, 3000L);
        return arrow ? List.of(ArrowDeletionCodec.write(small), ArrowDeletionCodec.write(dense))
                : List.of(BitmapDeletionCodec.write(small), BitmapDeletionCodec.write(dense));
    }

    @Test
    void sweepManifests() {
        var r = FuzzSweep.of("manifest", seeds("manifest", writerManifests())).run(4000, 13, TxDecoderFuzzTest::decodeManifest);
        assertThat(r.rejected()).isGreaterThan(r.inputs() / 2);
    }

    @Test
    void sweepTransactions() {
        var r = FuzzSweep.of("transaction", seeds("transaction", List.of())).run(3000, 14, TxDecoderFuzzTest::decodeTransaction);
        assertThat(r.succeeded()).isGreaterThan(0);
    }

    @Test
    void sweepArrowDeletions() {
        var r = FuzzSweep.of("arrow-deletion", seeds("arrowDeletion", writerDeletions(true)))
                .run(4000, 15, TxDecoderFuzzTest::decodeArrowDeletion);
        assertThat(r.rejected()).isGreaterThan(r.inputs() / 2);
    }

    @Test
    void sweepBitmapDeletions() {
        var r = FuzzSweep.of("bitmap-deletion", seeds("bitmapDeletion", writerDeletions(false)))
                .run(4000, 16, TxDecoderFuzzTest::decodeBitmapDeletion);
        assertThat(r.rejected()).isGreaterThan(r.inputs() / 2);
    }

    /** Framed formats detect truncation: no prefix of a valid file decodes to a smaller result. */
    @Test
    void truncatedFramedFilesAreRejected() {
        FuzzSweep.of("manifest", seeds("manifest", writerManifests())).truncations(200, TxDecoderFuzzTest::decodeManifest);
        FuzzSweep.of("arrow-deletion", seeds("arrowDeletion", writerDeletions(true))).truncations(200,
                TxDecoderFuzzTest::decodeArrowDeletion);
        FuzzSweep.of("bitmap-deletion", seeds("bitmapDeletion", writerDeletions(false))).truncations(200,
                TxDecoderFuzzTest::decodeBitmapDeletion);
    }
}
