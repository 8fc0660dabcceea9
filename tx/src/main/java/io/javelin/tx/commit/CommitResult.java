package io.javelin.tx.commit;

import io.javelin.tx.manifest.ManifestFile;

/** A published version: the manifest as written, its path, and how many publication attempts it took. */
public record CommitResult(ManifestFile manifest, String path, int attempts) {

    public long version() {
        return manifest.version();
    }
}
