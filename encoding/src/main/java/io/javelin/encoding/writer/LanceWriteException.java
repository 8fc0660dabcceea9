package io.javelin.encoding.writer;

/** Base of every error the Lance file writer raises. Unchecked, so it travels through Reactor untouched. */
public class LanceWriteException extends RuntimeException {
    public LanceWriteException(String message) {
        super(message);
    }

    public LanceWriteException(String message, Throwable cause) {
        super(message, cause);
    }
}
