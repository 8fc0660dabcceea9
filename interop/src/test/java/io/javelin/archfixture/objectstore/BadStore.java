package io.javelin.archfixture.objectstore;

import io.javelin.archfixture.encoding.Codec;

/** Fixture for ArchitectureTest: a lower layer reaching up, which the rule must reject. */
public final class BadStore {
    public int read() {
        return Codec.decode();
    }
}
