package io.javelin.objectstore;

/** A known storage option with a value that cannot be used. */
public class InvalidOptionException extends ObjectStoreException {

    public InvalidOptionException(String option, String value, String reason) {
        super("Invalid value for storage option '" + option + "': '" + value + "' (" + reason + ")");
    }
}
