package io.javelin.archfixture.encoding;

/** Fixture for ArchitectureTest: an upper-layer class. */
public final class Codec {
    public static int decode() {
        return 1;
    }
}
