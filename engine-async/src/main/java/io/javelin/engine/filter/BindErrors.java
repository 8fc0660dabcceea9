package io.javelin.engine.filter;

/** Reports a problem found while binding a filter, with the position of the offending sub-expression. */
interface BindErrors {
    FilterParseException error(Expr at, String message);
}
