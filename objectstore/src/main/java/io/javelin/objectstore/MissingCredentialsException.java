package io.javelin.objectstore;

/** No credentials could be found for a cloud store; the message says which options or variables to set. */
public class MissingCredentialsException extends ObjectStoreException {

    public MissingCredentialsException(String uri, String howToFix) {
        super("No credentials for '" + uri + "': " + howToFix);
    }
}
