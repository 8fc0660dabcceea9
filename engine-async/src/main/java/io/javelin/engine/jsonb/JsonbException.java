package io.javelin.engine.jsonb;

/** Malformed JSONB bytes, JSON text that cannot be encoded, or a value that does not convert (Lance's "InvalidCast"). */
public final class JsonbException extends RuntimeException {

    public JsonbException(String message) {
        super(message);
    }
}
