package io.javelin.engine.filter;

/** A filter expression that cannot be parsed or bound; carries the 0-based character position. */
public final class FilterParseException extends IllegalArgumentException {

    private final String expression;
    private final int position;

    public FilterParseException(String expression, int position, String problem) {
        super(format(expression, position, problem));
        this.expression = expression;
        this.position = position;
    }

    public String expression() {
        return expression;
    }

    /** 0-based offset into {@link #expression()} where the problem was found. */
    public int position() {
        return position;
    }

    private static String format(String expression, int position, String problem) {
        int caret = Math.max(0, Math.min(position, expression.length()));
        return problem + " at position " + position + "\n  " + expression + "\n  " + " ".repeat(caret) + "^";
    }
}
