package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.InvalidNameException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.tag.TagNames;
import io.javelin.tx.transaction.TransactionFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile names in table metadata: paths that climb out of the dataset, absolute paths, URIs,
 * backslashes, NULs and URL-encoded escapes are rejected with typed errors when a manifest is
 * decoded, before anything is read, written or deleted.
 */
class HostilePathsTest {

    static byte[] manifestWithDataFile(String path) {
        Manifest m = Manifest.newBuilder().setVersion(2).setMaxFragmentId(0)
                .addFields(io.javelin.encoding.pb.file.Field.newBuilder().setName("id").setId(0).setParentId(-1)
                        .setLogicalType("int64").setType(io.javelin.encoding.pb.file.Field.Type.LEAF))
                .addFragments(DataFragment.newBuilder().setId(0).setPhysicalRows(1)
                        .addFiles(DataFile.newBuilder().setPath(path).addFields(0).addColumnIndices(0)
                                .setFileMajorVersion(2).setFileMinorVersion(1)))
                .build();
        return ManifestCodec.encode(m, null, null);
    }

    @ParameterizedTest
    @ValueSource(strings = {"../escape.lance", "a/../../escape.lance", "/etc/passwd", "C:\\x.lance", "a\\..\\b.lance",
            "s3://other-bucket/x.lance", "file:///etc/passwd", "%2e%2e/escape.lance", "%2E%2E%2Fescape.lance",
            "a/%2f/b.lance", "x\u0000.lance", "./x.lance", "a//b.lance", ""})
    void dataFilePathsEscapingTheDatasetAreRejected(String path) {
        assertThatThrownBy(() -> ManifestCodec.decode("hostile.manifest", manifestWithDataFile(path)))
                .isInstanceOf(InvalidTableMetadataException.class);
    }

    @Test
    void ordinaryDataFileNamesPass() {
        assertThatCode(() -> ManifestCodec.decode("ok.manifest", manifestWithDataFile("0a1b2c-3d4e.lance")))
                .doesNotThrowAnyException();
        assertThatCode(() -> ManifestCodec.decode("ok.manifest", manifestWithDataFile("sub/dir/f%20name.lance")))
                .doesNotThrowAnyException();
    }

    @ParameterizedTest
    @ValueSource(strings = {"../1-x.txn", "/abs.txn", "sub/1-x.txn", "%2e%2e%2f1-x.txn"})
    void transactionFileNamesMustBeBareNames(String name) {
        Manifest m = Manifest.newBuilder().setVersion(2).setTransactionFile(name).build();
        assertThatThrownBy(() -> ManifestCodec.decode("hostile.manifest", ManifestCodec.encode(m, null, null)))
                .isInstanceOf(InvalidTableMetadataException.class);
        assertThatThrownBy(() -> TransactionFiles.read(new InMemoryManifestStore(), name).block())
                .isInstanceOf(InvalidTableMetadataException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"../x", "a/b", "..", "/x", "x\\y"})
    void tagNamesCannotEscapeTheRefsDirectory(String tag) {
        assertThatThrownBy(() -> TagNames.check(tag)).isInstanceOf(InvalidNameException.class);
    }

    @Test
    void escapingRowIdFilesAreRejected() {
        Manifest m = Manifest.newBuilder().setVersion(2).setMaxFragmentId(0)
                .addFragments(DataFragment.newBuilder().setId(0).setPhysicalRows(1).setExternalRowIds(
                        io.javelin.tx.pb.ExternalFile.newBuilder().setPath("../../rowids.bin")))
                .build();
        assertThatThrownBy(() -> ManifestCodec.decode("hostile.manifest", ManifestCodec.encode(m, null, null)))
                .isInstanceOf(InvalidTableMetadataException.class);
    }
}
