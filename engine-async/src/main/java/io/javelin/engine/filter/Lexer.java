package io.javelin.engine.filter;

import java.util.ArrayList;
import java.util.List;

/** Splits a filter expression into tokens. Identifiers may be quoted with backticks or double quotes. */
final class Lexer {

    private final String src;
    private int pos;

    private Lexer(String src) {
        this.src = src;
    }

    static List<Token> tokenize(String src) {
        return new Lexer(src).run();
    }

    private List<Token> run() {
        List<Token> out = new ArrayList<>();
        while (true) {
            while (pos < src.length() && Character.isWhitespace(src.charAt(pos))) {
                pos++;
            }
            if (pos >= src.length()) {
                out.add(new Token(Token.Kind.EOF, "", pos));
                return out;
            }
            out.add(next());
        }
    }

    private Token next() {
        int start = pos;
        char c = src.charAt(pos);
        if (Character.isLetter(c) || c == '_') {
            while (pos < src.length() && (Character.isLetterOrDigit(src.charAt(pos)) || src.charAt(pos) == '_')) {
                pos++;
            }
            return new Token(Token.Kind.IDENT, src.substring(start, pos), start);
        }
        if (Character.isDigit(c) || (c == '.' && pos + 1 < src.length() && Character.isDigit(src.charAt(pos + 1)))) {
            return number(start);
        }
        switch (c) {
            case '\'':
                return quoted(start, '\'', Token.Kind.STRING, "unterminated string literal");
            case '`':
                return quoted(start, '`', Token.Kind.QUOTED_IDENT, "unterminated quoted identifier");
            case '"':
                return quoted(start, '"', Token.Kind.QUOTED_IDENT, "unterminated quoted identifier");
            default:
                break;
        }
        pos++;
        return switch (c) {
            case '(' -> new Token(Token.Kind.LPAREN, "(", start);
            case ')' -> new Token(Token.Kind.RPAREN, ")", start);
            case '[' -> new Token(Token.Kind.LBRACKET, "[", start);
            case ']' -> new Token(Token.Kind.RBRACKET, "]", start);
            case ',' -> new Token(Token.Kind.COMMA, ",", start);
            case '.' -> new Token(Token.Kind.DOT, ".", start);
            case '+' -> new Token(Token.Kind.PLUS, "+", start);
            case '-' -> new Token(Token.Kind.MINUS, "-", start);
            case '*' -> new Token(Token.Kind.STAR, "*", start);
            case '/' -> new Token(Token.Kind.SLASH, "/", start);
            case '%' -> new Token(Token.Kind.PERCENT, "%", start);
            case '=' -> {
                if (peek('=')) {
                    pos++;
                }
                yield new Token(Token.Kind.EQ, "=", start);
            }
            case '|' -> {
                if (!peek('|')) {
                    throw new FilterParseException(src, start, "unexpected character '|' (did you mean '||'?)");
                }
                pos++;
                yield new Token(Token.Kind.CONCAT, "||", start);
            }
            case '!' -> {
                if (!peek('=')) {
                    throw new FilterParseException(src, start, "unexpected character '!'");
                }
                pos++;
                yield new Token(Token.Kind.NE, "!=", start);
            }
            case '<' -> {
                if (peek('=')) {
                    pos++;
                    yield new Token(Token.Kind.LE, "<=", start);
                }
                if (peek('>')) {
                    pos++;
                    yield new Token(Token.Kind.NE, "<>", start);
                }
                yield new Token(Token.Kind.LT, "<", start);
            }
            case '>' -> {
                if (peek('=')) {
                    pos++;
                    yield new Token(Token.Kind.GE, ">=", start);
                }
                yield new Token(Token.Kind.GT, ">", start);
            }
            default -> throw new FilterParseException(src, start, "unexpected character '" + c + "'");
        };
    }

    private boolean peek(char c) {
        return pos < src.length() && src.charAt(pos) == c;
    }

    private Token number(int start) {
        boolean decimal = false;
        while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
            pos++;
        }
        if (peek('.')) {
            decimal = true;
            pos++;
            while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                pos++;
            }
        }
        if (pos < src.length() && (src.charAt(pos) == 'e' || src.charAt(pos) == 'E')) {
            int mark = pos;
            pos++;
            if (peek('+') || peek('-')) {
                pos++;
            }
            if (pos >= src.length() || !Character.isDigit(src.charAt(pos))) {
                throw new FilterParseException(src, mark, "malformed exponent in number");
            }
            while (pos < src.length() && Character.isDigit(src.charAt(pos))) {
                pos++;
            }
            decimal = true;
        }
        if (pos < src.length() && (Character.isLetter(src.charAt(pos)) || src.charAt(pos) == '_')) {
            throw new FilterParseException(src, pos, "unexpected character '" + src.charAt(pos) + "' after number");
        }
        return new Token(decimal ? Token.Kind.DECIMAL : Token.Kind.INTEGER, src.substring(start, pos), start);
    }

    /** Reads a quoted token; a doubled quote character stands for itself. */
    private Token quoted(int start, char quote, Token.Kind kind, String unterminated) {
        StringBuilder sb = new StringBuilder();
        pos++;
        while (true) {
            if (pos >= src.length()) {
                throw new FilterParseException(src, start, unterminated);
            }
            char c = src.charAt(pos++);
            if (c == quote) {
                if (peek(quote)) {
                    sb.append(quote);
                    pos++;
                    continue;
                }
                return new Token(kind, sb.toString(), start);
            }
            sb.append(c);
        }
    }
}
