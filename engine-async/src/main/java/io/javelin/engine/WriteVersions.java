package io.javelin.engine;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.tx.UnsupportedFeatureException;
import java.util.Locale;

/** The file version new data files of a dataset are written in, from the manifest's data storage version. */
final class WriteVersions {

    private WriteVersions() {
    }

    /**
     * {@code dataStorageVersion} as a writer version; {@code unset} when the manifest records none. Legacy
     * (0.1 / 0.2) datasets are read but not written to: new files would have to be legacy too, and Javelin
     * writes only 2.x files, so appends, compactions and new columns are refused by name.
     */
    static LanceFileVersion of(String dataStorageVersion, LanceFileVersion unset) {
        String v = dataStorageVersion.trim().toLowerCase(Locale.ROOT);
        if (v.isEmpty()) {
            return unset;
        }
        if (v.equals("legacy") || v.equals("0.1") || v.equals("0.2")) {
            throw new UnsupportedFeatureException("Writing to a dataset of legacy (" + v + ") data files: Javelin reads them "
                    + "but writes only 2.0, 2.1 and 2.2 files");
        }
        return LanceFileVersion.parse(v);
    }
}
