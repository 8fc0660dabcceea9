package io.javelin.tx;

/** The dataset uses a feature flag (or format element) this engine does not know: refuse, never guess. */
public final class UnsupportedFeatureException extends TxException {

    public UnsupportedFeatureException(String message) {
        super(message);
    }
}
