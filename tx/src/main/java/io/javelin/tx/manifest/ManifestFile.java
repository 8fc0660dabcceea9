package io.javelin.tx.manifest;

import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;

/**
 * One decoded {@code _versions/*.manifest}: the manifest, its optional index section and inline
 * transaction (null when absent), and the file size (tags record it as {@code manifestSize}).
 */
public record ManifestFile(Manifest manifest, IndexSection indexSection, Transaction transaction, long size) {

    public long version() {
        return manifest.getVersion();
    }
}
