package io.javelin.objectstore;

import java.util.List;

/** A storage option the selected store does not know. Unknown options are errors, never ignored. */
public class UnknownOptionException extends ObjectStoreException {

    private final String option;

    public UnknownOptionException(String option, String scheme, List<String> known) {
        super("Unknown storage option '" + option + "' for scheme '" + scheme + "' (known: " + known + ")");
        this.option = option;
    }

    public String option() {
        return option;
    }
}
