package io.javelin.engine.filter;

/** What function and operator binders may ask of the binder: bind sub-expressions and report positioned errors. */
interface Binding extends BindErrors {

    Predicate.Node bind(Expr e);

    /** Binds {@code e} and requires a boolean (or NULL) result. */
    Predicate.Node bindBool(Expr e);
}
