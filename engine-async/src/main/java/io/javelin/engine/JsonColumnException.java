package io.javelin.engine;

/** A JSON column value that is not valid JSON (on write) or not valid JSONB (on read), naming column and row. */
public final class JsonColumnException extends RuntimeException {

    public JsonColumnException(String message) {
        super(message);
    }
}
