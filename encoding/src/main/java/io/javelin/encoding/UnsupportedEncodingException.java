package io.javelin.encoding;

/** The file is well formed but uses a version, layout or encoding this reader does not implement. */
public class UnsupportedEncodingException extends CorruptFileException {

    public UnsupportedEncodingException(String resource, long offset, String message) {
        super(resource, offset, message);
    }
}
