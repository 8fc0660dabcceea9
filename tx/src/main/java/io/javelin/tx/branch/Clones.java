package io.javelin.tx.branch;

import com.google.protobuf.Timestamp;
import io.javelin.tx.manifest.FeatureFlags;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.BasePath;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.transaction.ManifestBuilder;
import io.javelin.tx.transaction.TransactionFiles;
import io.javelin.tx.transaction.Transactions;
import java.time.Instant;

/**
 * The first manifest of a clone or branch (Lance {@code Manifest::shallow_clone}): the source manifest with
 * its version number kept, a new {@link BasePath} for the source root ({@code id = max + 1}, or 0 when there
 * is none; {@code is_dataset_root}), that base id on every data file, deletion file and index that had none,
 * {@code Manifest.branch} for branches, and a {@code Clone} transaction. A deep clone keeps the manifest's
 * file references as they are (the caller copies the files). Pure.
 */
public final class Clones {

    /** The first manifest and its transaction. */
    public record Cloned(Manifest manifest, IndexSection indexSection, Transaction transaction) {
    }

    private Clones() {
    }

    public static Cloned shallow(ManifestFile src, String sourceRoot, String refName, String branchName, Instant now) {
        Manifest.Builder m = src.manifest().toBuilder();
        int id = 0;
        for (BasePath b : m.getBasePathsList()) {
            id = Math.max(id, b.getId() + 1);
        }
        BasePath.Builder base = BasePath.newBuilder().setId(id).setIsDatasetRoot(true).setPath(sourceRoot);
        m.addBasePaths(base);
        for (int i = 0; i < m.getFragmentsCount(); i++) {
            DataFragment.Builder f = m.getFragments(i).toBuilder();
            for (int k = 0; k < f.getFilesCount(); k++) {
                if (!f.getFiles(k).hasBaseId()) {
                    f.setFiles(k, f.getFiles(k).toBuilder().setBaseId(id));
                }
            }
            if (f.hasDeletionFile() && !f.getDeletionFile().hasBaseId()) {
                f.setDeletionFile(f.getDeletionFile().toBuilder().setBaseId(id));
            }
            m.setFragments(i, f);
        }
        IndexSection index = src.indexSection();
        if (index != null) {
            IndexSection.Builder ib = IndexSection.newBuilder();
            for (IndexMetadata im : index.getIndicesList()) {
                ib.addIndices(im.hasBaseId() ? im : im.toBuilder().setBaseId(id).build());
            }
            index = ib.build();
        }
        if (branchName != null) {
            m.setBranch(branchName);
        } else {
            m.clearBranch();
        }
        Transaction txn = clone(src.version(), true, sourceRoot, refName, branchName);
        return new Cloned(stamp(m, txn, now), index, txn);
    }

    public static Cloned deep(ManifestFile src, String sourceRoot, String refName, Instant now) {
        Manifest.Builder m = src.manifest().toBuilder().clearBranch();
        Transaction txn = clone(src.version(), false, sourceRoot, refName, null);
        return new Cloned(stamp(m, txn, now), src.indexSection(), txn);
    }

    private static Transaction clone(long version, boolean shallow, String sourceRoot, String refName, String branchName) {
        Transaction.Clone.Builder c = Transaction.Clone.newBuilder().setIsShallow(shallow).setRefVersion(version).setRefPath(sourceRoot);
        if (refName != null) {
            c.setRefName(refName);
        }
        if (branchName != null) {
            c.setBranchName(branchName);
        }
        return Transaction.newBuilder().setReadVersion(version).setUuid(Transactions.newUuid()).setClone(c).build();
    }

    private static Manifest stamp(Manifest.Builder m, Transaction txn, Instant now) {
        boolean stable = (m.getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
        m.setWriterVersion(ManifestBuilder.WRITER_VERSION)
                .setTimestamp(Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
                .setTransactionFile(TransactionFiles.fileName(txn)).clearIndexSection().clearTransactionSection();
        FeatureFlags.apply(m, stable);
        return m.build();
    }
}
