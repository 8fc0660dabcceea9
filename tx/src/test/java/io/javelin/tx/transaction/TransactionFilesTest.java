package io.javelin.tx.transaction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedOutputStream;
import io.javelin.tx.CorruptFileException;
import io.javelin.tx.Golden;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.version.ManifestNaming;
import io.javelin.tx.version.VersionResolver;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class TransactionFilesTest {

    @Test
    void goldenTransactionFilesEqualTheInlineCopies() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, true);
        VersionResolver r = new VersionResolver(store);
        for (long v = 1; v <= 6; v++) {
            ManifestFile mf = r.read(v, ManifestNaming.V2).block();
            Transaction fromFile = TransactionFiles.read(store, mf.manifest().getTransactionFile()).block();
            assertThat(fromFile).isEqualTo(mf.transaction());
            assertThat(TransactionFiles.fileName(fromFile)).isEqualTo(mf.manifest().getTransactionFile());
            assertThat(fromFile.getReadVersion()).isEqualTo(v - 1);
        }
    }

    /** Applying each golden transaction to the previous golden manifest gives the golden fragments. */
    @Test
    void replayingGoldenTransactionsRebuildsTheirFragments() {
        VersionResolver r = new VersionResolver(Golden.store(Golden.VERSIONS_DELETES, true));
        for (long v = 2; v <= 6; v++) {
            ManifestFile prev = r.read(v - 1, ManifestNaming.V2).block();
            ManifestFile golden = r.read(v, ManifestNaming.V2).block();
            Manifest built = ManifestBuilder.build(prev, golden.transaction(), null, Instant.now()).manifest();
            assertThat(built.getVersion()).isEqualTo(v);
            assertThat(built.getReaderFeatureFlags()).isEqualTo(golden.manifest().getReaderFeatureFlags());
            assertThat(built.getWriterFeatureFlags()).isEqualTo(golden.manifest().getWriterFeatureFlags());
            assertThat(built.getFieldsList()).isEqualTo(golden.manifest().getFieldsList());
            if (v == 3) {
                // Lance 7.0.0 restarts fragment ids at 0 on Overwrite; we continue the high-water mark
                assertThat(built.getFragmentsList()).extracting(DataFragment::getId).containsExactly(1L, 2L);
                assertThat(built.getFragmentsList()).extracting(f -> f.toBuilder().clearId().build())
                        .containsExactlyElementsOf(golden.manifest().getFragmentsList().stream().map(f -> f.toBuilder().clearId().build()).toList());
            } else {
                assertThat(built.getFragmentsList()).isEqualTo(golden.manifest().getFragmentsList());
                assertThat(built.getMaxFragmentId()).isEqualTo(golden.manifest().getMaxFragmentId());
            }
        }
    }

    @Test
    void hostileTransactions() throws IOException {
        for (String uuid : new String[] {"../../x", "", "D354ECE8-4E41-4734-B1D1-AB396437EBE4", "d354ece8-4e41-4734-b1d1-ab396437ebe4/",
                "not-a-uuid"}) {
            Transaction t = Transaction.newBuilder().setUuid(uuid).setAppend(Transaction.Append.getDefaultInstance()).build();
            assertThatThrownBy(() -> TransactionFiles.fileName(t)).as(uuid).isInstanceOf(InvalidTableMetadataException.class);
        }
        assertThatThrownBy(() -> TransactionFiles.read(new InMemoryManifestStore(), "../secret.txn").block())
                .isInstanceOf(InvalidTableMetadataException.class);
        assertThatThrownBy(() -> TransactionFiles.decode("p", Transaction.newBuilder().setReadVersion(1).build().toByteArray()))
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("did not contain an operation");
        assertThatThrownBy(() -> TransactionFiles.decode("p", new byte[] {(byte) 0xff, 0x01})).isInstanceOf(CorruptFileException.class);
        // a newer operation tag (116) decodes as UNKNOWN, which every conflict check refuses
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeUInt64(1, 3);
        out.writeString(2, Transactions.newUuid());
        out.writeBytes(116, com.google.protobuf.ByteString.EMPTY);
        out.flush();
        Transaction future = TransactionFiles.decode("p", bytes.toByteArray());
        assertThat(OperationKind.of(future)).isEqualTo(OperationKind.UNKNOWN);
        assertThat(ConflictResolver.check(Transactions.append(1, List.of()), future).outcome())
                .isEqualTo(Resolution.Outcome.INCOMPATIBLE);
    }

    @Test
    void uuidsAreV4AndLowercase() {
        Pattern p = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
        for (int i = 0; i < 100; i++) {
            assertThat(Transactions.newUuid()).matches(p);
        }
    }

    @Test
    void builderRefusesBadInput() {
        VersionResolver r = new VersionResolver(Golden.store(Golden.VERSIONS_DELETES, true));
        ManifestFile v6 = r.read(6, ManifestNaming.V2).block();
        DataFragment empty = DataFragment.newBuilder().addFiles(v6.manifest().getFragments(0).getFiles(0)).build();
        assertThatThrownBy(() -> ManifestBuilder.build(v6, Transactions.append(6, List.of(empty)), null, Instant.now()))
                .isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("physical_rows 0");
        DataFragment clash = v6.manifest().getFragments(1).toBuilder().clearDeletionFile().build(); // id 1 already used
        assertThatThrownBy(() -> ManifestBuilder.build(v6, Transactions.append(6, List.of(clash)), null, Instant.now()))
                .isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("Duplicate fragment id 1");
        ManifestFile stable = new ManifestFile(v6.manifest().toBuilder().setReaderFeatureFlags(3).setWriterFeatureFlags(3).build(),
                null, null, 0);
        DataFragment ok = v6.manifest().getFragments(0).toBuilder().setId(0).clearDeletionFile().build();
        // stable row ids: the appended fragment gets ids from next_row_id (0 here) and next_row_id moves on
        var withIds = ManifestBuilder.build(stable, Transactions.append(6, List.of(ok)), null, Instant.now()).manifest();
        DataFragment added = withIds.getFragments(withIds.getFragmentsCount() - 1);
        assertThat(io.javelin.tx.rowid.FragmentRowIds.readInline(added))
                .isEqualTo(io.javelin.tx.rowid.RowIdSequence.range(0, ok.getPhysicalRows()));
        assertThat(withIds.getNextRowId()).isEqualTo(ok.getPhysicalRows());
        ManifestFile future = new ManifestFile(v6.manifest().toBuilder().setWriterFeatureFlags(1 | 64).build(), null, null, 0); // data overlay files
        assertThatThrownBy(() -> ManifestBuilder.build(future, Transactions.append(6, List.of(ok)), null, Instant.now()))
                .isInstanceOf(UnsupportedFeatureException.class).hasMessageContaining("cannot be written");
        Transaction merge = Transaction.newBuilder().setReadVersion(6).setUuid(Transactions.newUuid())
                .setMerge(Transaction.Merge.getDefaultInstance()).build();
        // Merge is supported (schema evolution); an empty one would drop every fragment
        assertThatThrownBy(() -> ManifestBuilder.build(v6, merge, null, Instant.now())).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("reduced fragment count");
    }
}
