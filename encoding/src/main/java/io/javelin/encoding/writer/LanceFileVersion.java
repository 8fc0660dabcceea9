package io.javelin.encoding.writer;

/** The Lance file format versions the writer can produce, with the numbers written in the footer. */
public enum LanceFileVersion {
    /** 2.0: legacy ArrayEncoding pages; the Rust writer puts (0, 3) in the footer. */
    V2_0("2.0", 0, 3),
    /** 2.1: structural mini-block / full-zip pages with u16 chunk words. Default, as in Lance 7.0.0. */
    V2_1("2.1", 2, 1),
    /** 2.2: like 2.1 with u32 chunk words and sizes (has_large_chunk), constant layout, map. */
    V2_2("2.2", 2, 2);

    private final String label;
    private final int major;
    private final int minor;

    LanceFileVersion(String label, int major, int minor) {
        this.label = label;
        this.major = major;
        this.minor = minor;
    }

    public String label() {
        return label;
    }

    public int footerMajor() {
        return major;
    }

    public int footerMinor() {
        return minor;
    }

    public boolean structural() {
        return this != V2_0;
    }

    public static LanceFileVersion parse(String s) {
        return switch (s.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "2.0" -> V2_0;
            case "2.1", "stable" -> V2_1;
            case "2.2" -> V2_2;
            default -> throw new IllegalArgumentException("Unsupported Lance file version: " + s + " (expected 2.0, 2.1 or 2.2)");
        };
    }

    @Override
    public String toString() {
        return label;
    }
}
