package io.javelin.engine.filter;

/** A filter that parsed and bound but failed on the data, e.g. integer division by zero or overflow. */
public final class FilterEvaluationException extends RuntimeException {
    public FilterEvaluationException(String message) {
        super(message);
    }
}
