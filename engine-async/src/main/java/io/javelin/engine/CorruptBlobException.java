package io.javelin.engine;

/** A blob descriptor that cannot name real bytes: unknown kind, impossible range, missing file or URI. */
public class CorruptBlobException extends DatasetException {

    public CorruptBlobException(String uri, long version, String message) {
        super(uri, version, message);
    }
}
