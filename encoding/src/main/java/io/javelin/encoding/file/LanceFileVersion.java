package io.javelin.encoding.file;

/** The data-file format versions this reader knows, with the footer numbers that name them. */
public enum LanceFileVersion {
    V2_0("2.0"),
    V2_1("2.1"),
    V2_2("2.2"),
    V2_3("2.3");

    private final String label;

    LanceFileVersion(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** True for 2.1 and later (structural layouts, leaf-only columns). */
    public boolean structural() {
        return this != V2_0;
    }

    /** Maps footer (major, minor); null if unknown. 2.0 appears as (0,3) and as (2,0). */
    public static LanceFileVersion fromFooter(int major, int minor) {
        if ((major == 0 && minor == 3) || (major == 2 && minor == 0)) {
            return V2_0;
        }
        if (major == 2 && minor == 1) {
            return V2_1;
        }
        if (major == 2 && minor == 2) {
            return V2_2;
        }
        if (major == 2 && minor == 3) {
            return V2_3;
        }
        return null;
    }
}
