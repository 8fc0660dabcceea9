package io.javelin.tx.version;

/**
 * The two manifest naming schemes of {@code _versions/} (Lance {@code ManifestNamingScheme}). V2 names
 * count down from {@code u64::MAX} so that a lexically ordered listing yields the newest version first.
 * A dataset never mixes them: writers continue the scheme of the latest manifest.
 */
public enum ManifestNaming {
    /** {@code {version}.manifest} */
    V1,
    /** {@code {u64::MAX - version:020}.manifest} */
    V2;

    public static final String VERSIONS_DIR = "_versions/";
    static final String SUFFIX = ".manifest";
    static final int V2_NAME_LENGTH = 20 + SUFFIX.length();

    /** The file name (no directory) of {@code version}. */
    public String fileName(long version) {
        if (version <= 0) {
            throw new IllegalArgumentException("Invalid version: " + version + " (must be >= 1)");
        }
        return this == V1
                ? Long.toString(version) + SUFFIX
                : pad20(Long.toUnsignedString(-1L - version)) + SUFFIX;
    }

    public String path(long version) {
        return VERSIONS_DIR + fileName(version);
    }

    private static String pad20(String digits) {
        return "0".repeat(20 - digits.length()) + digits;
    }

    /**
     * The scheme of a listed file name, or null if it is not a committed manifest name (staging files
     * {@code N.manifest-uuid}, detached {@code d...} manifests, the hint file, garbage).
     */
    public static ManifestNaming detect(String fileName) {
        if (!fileName.endsWith(SUFFIX) || fileName.startsWith("d")) {
            return null;
        }
        String digits = fileName.substring(0, fileName.length() - SUFFIX.length());
        if (digits.isEmpty() || digits.length() > 20) {
            return null;
        }
        for (int i = 0; i < digits.length(); i++) {
            char c = digits.charAt(i);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        if (fileName.length() == V2_NAME_LENGTH) {
            return V2;
        }
        return digits.length() > 1 && digits.charAt(0) == '0' ? null : V1;
    }

    /** The version named by a committed manifest file name, or -1 if it is not one. */
    public static long parseVersion(String fileName) {
        ManifestNaming scheme = detect(fileName);
        if (scheme == null) {
            return -1;
        }
        String digits = fileName.substring(0, fileName.length() - SUFFIX.length());
        long n;
        try {
            n = Long.parseUnsignedLong(digits);
        } catch (NumberFormatException e) {
            return -1;
        }
        long version = scheme == V1 ? n : -1L - n; // u64::MAX - n
        return version > 0 ? version : -1;
    }
}
