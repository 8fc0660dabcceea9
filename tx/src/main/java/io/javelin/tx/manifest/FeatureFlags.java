package io.javelin.tx.manifest;

import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.pb.Manifest;

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
    /** Fragment records live in a fragment metadata tree (proposed format, spec 000); fragments is empty. */
    public static final long FRAGMENT_TREE = 4096;

    /** Bits this engine can read correctly. Stable row ids are understood at the metadata level. */
    public static final long KNOWN_READER = (FIRST_UNKNOWN - 1) | FRAGMENT_TREE;
    /** Bits this engine can write while preserving their meaning. */
    public static final long KNOWN_WRITER = (FIRST_UNKNOWN - 1) | FRAGMENT_TREE;

    private FeatureFlags() {
    }

    /** Throws unless every reader bit of {@code m} is known. */
    public static void checkReadable(Manifest m, String path) {
        long unknown = m.getReaderFeatureFlags() & ~KNOWN_READER;
        if (unknown != 0) {
            throw new UnsupportedFeatureException("Dataset version " + m.getVersion() + " cannot be read by this"
                    + " version of Javelin: unknown reader feature flags 0x" + Long.toHexString(unknown)
                    + " (path=" + path + ")");
        }
    }

    /** Throws unless every writer bit of {@code m} is known: we must not commit on top of it otherwise. */
    public static void checkWritable(Manifest m) {
        long unknown = m.getWriterFeatureFlags() & ~KNOWN_WRITER;
        if (unknown != 0) {
            throw new UnsupportedFeatureException("Dataset version " + m.getVersion() + " cannot be written by"
                    + " this version of Javelin: unknown writer feature flags 0x" + Long.toHexString(unknown));
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
        if (m.getBasePathsCount() > 0) {
            reader |= BASE_PATHS;
            writer |= BASE_PATHS;
        }
        return m.setReaderFeatureFlags(reader).setWriterFeatureFlags(writer);
    }
}
