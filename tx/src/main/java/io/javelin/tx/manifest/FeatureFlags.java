package io.javelin.tx.manifest;

import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.pb.Manifest;
import java.util.ArrayList;
import java.util.List;

/**
 * Manifest feature-flag bits (Lance {@code feature_flags.rs}). Readers refuse any reader bit they do not
 * know and writers refuse any writer bit they do not know: an unknown bit means the dataset relies on
 * something we would silently get wrong. Lance 7.0.0 knows exactly the bits below 64.
 */
public final class FeatureFlags {

    public static final long DELETION_FILES = 1;
    public static final long STABLE_ROW_IDS = 2;
    /** Never set by writers; tolerated. */
    public static final long USE_V2_FORMAT_DEPRECATED = 4;
    /** Writer-only: the manifest has a non-empty config map. */
    public static final long TABLE_CONFIG = 8;
    public static final long BASE_PATHS = 16;
    /** Writer-only: transactions are inline only. */
    public static final long DISABLE_TRANSACTION_FILE = 32;
    /** Every bit at or above this one is unknown to Lance 7.0.0. */
    public static final long FIRST_UNKNOWN = 64;
    /** Fragments carry data overlay files (cell-level updates over the base files): not implemented. */
    public static final long DATA_OVERLAY_FILES = 64;
    /** Index metadata names covered (carried) columns in {@code covering_fields}: not implemented. */
    public static final long COVERED_INDEX_METADATA = 128;
    /**
     * Data files of different Lance file versions in one dataset; each {@code DataFile}'s own version decides
     * how it is decoded (our reader goes by each file's footer), {@code data_format} is only the default for
     * new files. A sticky pair: both fields or neither.
     */
    public static final long MIXED_DATA_FILE_VERSIONS = 256;
    /** A fragment reuse index with a tagged transition history (FRI index version 1): not implemented. */
    public static final long FRAGMENT_REUSE_INDEX = 1024;
    /** Fragment records live in a fragment metadata tree (proposed format, spec 000); fragments is empty. */
    public static final long FRAGMENT_TREE = 4096;

    /** Bits this engine can read correctly. Stable row ids are understood at the metadata level. */
    public static final long KNOWN_READER = (FIRST_UNKNOWN - 1) | MIXED_DATA_FILE_VERSIONS | FRAGMENT_TREE;
    /** Bits this engine can write while preserving their meaning. */
    public static final long KNOWN_WRITER = (FIRST_UNKNOWN - 1) | MIXED_DATA_FILE_VERSIONS | FRAGMENT_TREE;

    /** What a flag means, for error messages; null when the bit has no name. */
    static String name(long bit) {
        if (bit == DATA_OVERLAY_FILES) {
            return "data overlay files";
        } else if (bit == COVERED_INDEX_METADATA) {
            return "covered index metadata";
        } else if (bit == MIXED_DATA_FILE_VERSIONS) {
            return "mixed data file versions";
        } else if (bit == FRAGMENT_REUSE_INDEX) {
            return "fragment reuse index";
        }
        return null;
    }

    /** {@code 64 (data overlay files), 2048} for the set bits of {@code flags}. */
    static String describe(long flags) {
        List<String> out = new ArrayList<>();
        for (long rest = flags; rest != 0; rest &= rest - 1) {
            long bit = Long.lowestOneBit(rest);
            String n = name(bit);
            out.add(Long.toUnsignedString(bit) + (n == null ? "" : " (" + n + ")"));
        }
        return String.join(", ", out);
    }

    private FeatureFlags() {
    }

    /** Throws unless every reader bit of {@code m} is known. */
    public static void checkReadable(Manifest m, String path) {
        long unknown = m.getReaderFeatureFlags() & ~KNOWN_READER;
        if (unknown != 0) {
            throw new UnsupportedFeatureException("Dataset version " + m.getVersion() + " cannot be read by this"
                    + " version of Javelin: it uses reader feature flag " + describe(unknown) + ", not implemented"
                    + " (path=" + path + ")");
        }
        if (((m.getReaderFeatureFlags() ^ m.getWriterFeatureFlags()) & MIXED_DATA_FILE_VERSIONS) != 0) {
            throw new InvalidTableMetadataException("Manifest of version " + m.getVersion() + " has only one of the"
                    + " mixed data-file-version reader and writer feature bits set, so its semantics are undefined (path=" + path + ")");
        }
        for (var f : m.getFragmentsList()) {
            for (var df : f.getFilesList()) {
                if (df.getFileMajorVersion() == 2 && df.getFileMinorVersion() >= 3) {
                    throw new UnsupportedFeatureException("Dataset version " + m.getVersion() + " has data file " + df.getPath()
                            + " in Lance file format " + df.getFileMajorVersion() + "." + df.getFileMinorVersion()
                            + " (sparse page layout), which this version of Javelin does not read yet (path=" + path + ")");
                }
            }
        }
    }

    /** Throws unless every writer bit of {@code m} is known: we must not commit on top of it otherwise. */
    public static void checkWritable(Manifest m) {
        long unknown = m.getWriterFeatureFlags() & ~KNOWN_WRITER;
        if (unknown != 0) {
            throw new UnsupportedFeatureException("Dataset version " + m.getVersion() + " cannot be written by"
                    + " this version of Javelin: it uses writer feature flag " + describe(unknown) + ", not implemented");
        }
    }

    /**
     * Recomputes the flags from the manifest content, as Lance's {@code apply_feature_flags} does on every
     * commit. {@code stableRowIds} is sticky: it is a property of the dataset, not of one version.
     */
    public static Manifest.Builder apply(Manifest.Builder m, boolean stableRowIds) {
        long reader = 0;
        long writer = 0;
        boolean deletions = false;
        for (var f : m.getFragmentsList()) {
            if (f.hasDeletionFile()) {
                deletions = true;
                break;
            }
        }
        if (m.hasFragmentTree()) {
            // The fragment list is not in the manifest: the tree flag is structural and the
            // deletion flag is sticky (it cannot be recomputed without reading every leaf).
            reader |= FRAGMENT_TREE;
            writer |= FRAGMENT_TREE;
            deletions |= (m.getReaderFeatureFlags() & DELETION_FILES) != 0;
        }
        if (deletions) {
            reader |= DELETION_FILES;
            writer |= DELETION_FILES;
        }
        if (stableRowIds) {
            reader |= STABLE_ROW_IDS;
            writer |= STABLE_ROW_IDS;
        }
        if (m.getConfigCount() > 0) {
            writer |= TABLE_CONFIG;
        }
        if ((m.getReaderFeatureFlags() & m.getWriterFeatureFlags() & MIXED_DATA_FILE_VERSIONS) != 0) {
            // sticky: once files of several versions may be present, every later version says so
            reader |= MIXED_DATA_FILE_VERSIONS;
            writer |= MIXED_DATA_FILE_VERSIONS;
        }
        if (m.getBasePathsCount() > 0) {
            reader |= BASE_PATHS;
            writer |= BASE_PATHS;
        }
        return m.setReaderFeatureFlags(reader).setWriterFeatureFlags(writer);
    }
}
