package io.javelin.engine.filter;

/** One lexical token of a filter expression. {@code text} is the unquoted text for identifiers and strings. */
record Token(Kind kind, String text, int position) {

    enum Kind {
        IDENT, QUOTED_IDENT, INTEGER, DECIMAL, STRING,
        LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA, DOT,
        EQ, NE, LT, LE, GT, GE, PLUS, MINUS, STAR, SLASH, PERCENT, CONCAT,
        EOF
    }

    boolean isKeyword(String keyword) {
        return kind == Kind.IDENT && text.equalsIgnoreCase(keyword);
    }
}
