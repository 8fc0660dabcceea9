package io.javelin.spark;

/** A request the connector cannot serve (an unsupported type, option or table shape), with the reason. */
public class JavelinSparkException extends RuntimeException {
    public JavelinSparkException(String message) {
        super(message);
    }

    public JavelinSparkException(String message, Throwable cause) {
        super(message, cause);
    }
}
