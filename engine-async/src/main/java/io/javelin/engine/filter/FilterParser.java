package io.javelin.engine.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Recursive-descent parser for the SQL WHERE subset Lance users write: comparisons, AND/OR/NOT,
 * IN, BETWEEN, IS [NOT] NULL/TRUE/FALSE/DISTINCT FROM, [I]LIKE [ESCAPE], arithmetic, {@code ||}, CAST, CASE,
 * function calls, list literals and subscripts, typed date/timestamp/decimal literals and nested field access
 * ({@code a.b} or {@code a['b']}). Errors carry the character position.
 */
public final class FilterParser {

    private static final Set<String> RESERVED = Set.of(
            "AND", "OR", "NOT", "IS", "NULL", "IN", "BETWEEN", "LIKE", "ILIKE", "TRUE", "FALSE", "CAST", "AS",
            "CASE", "WHEN", "THEN", "ELSE", "END");

    private final String src;
    private final List<Token> tokens;
    private int i;

    private FilterParser(String src) {
        this.src = src;
        this.tokens = Lexer.tokenize(src);
    }

    /** Parses a filter; throws {@link FilterParseException} with the position of the first problem. */
    public static Expr parse(String filter) {
        if (filter == null || filter.isBlank()) {
            throw new FilterParseException(filter == null ? "" : filter, 0, "empty filter expression");
        }
        FilterParser p = new FilterParser(filter);
        Expr e = p.or();
        Token t = p.peek();
        if (t.kind() != Token.Kind.EOF) {
            throw p.error(t, "unexpected '" + t.text() + "'");
        }
        return e;
    }

    private Expr or() {
        Expr left = and();
        while (peek().isKeyword("OR")) {
            Token op = advance();
            left = new Expr.Or(left, and(), op.position());
        }
        return left;
    }

    private Expr and() {
        Expr left = not();
        while (peek().isKeyword("AND")) {
            Token op = advance();
            left = new Expr.And(left, not(), op.position());
        }
        return left;
    }

    private Expr not() {
        if (peek().isKeyword("NOT")) {
            Token op = advance();
            return new Expr.Not(not(), op.position());
        }
        return predicate();
    }

    private Expr predicate() {
        Expr left = additive();
        Token t = peek();
        Expr.CompareOp cmp = switch (t.kind()) {
            case EQ -> Expr.CompareOp.EQ;
            case NE -> Expr.CompareOp.NE;
            case LT -> Expr.CompareOp.LT;
            case LE -> Expr.CompareOp.LE;
            case GT -> Expr.CompareOp.GT;
            case GE -> Expr.CompareOp.GE;
            default -> null;
        };
        if (cmp != null) {
            advance();
            return new Expr.Compare(cmp, left, additive(), t.position());
        }
        if (t.isKeyword("IS")) {
            advance();
            boolean negated = acceptKeyword("NOT");
            Token what = advance();
            if (what.isKeyword("NULL")) {
                return new Expr.IsNull(left, negated, t.position());
            }
            if (what.isKeyword("TRUE") || what.isKeyword("FALSE")) {
                return new Expr.IsBool(left, what.isKeyword("TRUE"), negated, t.position());
            }
            if (what.isKeyword("DISTINCT")) {
                expectKeyword("FROM", "expected FROM after IS DISTINCT");
                return new Expr.IsDistinct(left, additive(), negated, t.position());
            }
            throw error(what, "expected NULL, TRUE or FALSE (or DISTINCT FROM) after IS");
        }
        boolean negated = false;
        if (t.isKeyword("NOT") && (peekAt(1).isKeyword("IN") || peekAt(1).isKeyword("BETWEEN")
                || peekAt(1).isKeyword("LIKE") || peekAt(1).isKeyword("ILIKE"))) {
            advance();
            negated = true;
            t = peek();
        }
        if (t.isKeyword("IN")) {
            advance();
            return new Expr.In(left, list(), negated, t.position());
        }
        if (t.isKeyword("BETWEEN")) {
            advance();
            Expr low = additive();
            expectKeyword("AND", "expected AND in BETWEEN");
            return new Expr.Between(left, low, additive(), negated, t.position());
        }
        if (t.isKeyword("LIKE") || t.isKeyword("ILIKE")) {
            advance();
            Token pattern = advance();
            if (pattern.kind() != Token.Kind.STRING) {
                throw error(pattern, t.text().toUpperCase(Locale.ROOT) + " needs a string pattern");
            }
            Character escape = null;
            if (acceptKeyword("ESCAPE")) {
                Token esc = advance();
                if (esc.kind() != Token.Kind.STRING || esc.text().codePointCount(0, esc.text().length()) > 1) {
                    throw error(esc, "ESCAPE needs a string of one character");
                }
                escape = esc.text().isEmpty() ? Character.valueOf('\0') : esc.text().charAt(0);
            }
            return new Expr.Like(left, pattern.text(), negated, t.isKeyword("ILIKE"), escape, t.position());
        }
        return left;
    }

    private List<Expr> list() {
        Token open = advance();
        Token.Kind close;
        if (open.kind() == Token.Kind.LPAREN) {
            close = Token.Kind.RPAREN;
        } else if (open.kind() == Token.Kind.LBRACKET) {
            close = Token.Kind.RBRACKET;
        } else {
            throw error(open, "expected '(' after IN");
        }
        List<Expr> values = new ArrayList<>();
        if (peek().kind() == close) {
            throw error(peek(), "IN list is empty");
        }
        do {
            values.add(additive());
        } while (accept(Token.Kind.COMMA));
        expect(close, "expected ',' or '" + (close == Token.Kind.RPAREN ? ")" : "]") + "' in IN list");
        return values;
    }

    private Expr additive() {
        Expr left = multiplicative();
        while (true) {
            Token t = peek();
            if (t.kind() == Token.Kind.CONCAT) {
                advance();
                left = new Expr.Call("||", List.of(left, multiplicative()), t.position());
            } else if (t.kind() == Token.Kind.PLUS || t.kind() == Token.Kind.MINUS) {
                advance();
                Expr.ArithmeticOp op = t.kind() == Token.Kind.PLUS ? Expr.ArithmeticOp.ADD : Expr.ArithmeticOp.SUBTRACT;
                left = new Expr.Arithmetic(op, left, multiplicative(), t.position());
            } else {
                return left;
            }
        }
    }

    private Expr multiplicative() {
        Expr left = unary();
        while (true) {
            Token t = peek();
            Expr.ArithmeticOp op = switch (t.kind()) {
                case STAR -> Expr.ArithmeticOp.MULTIPLY;
                case SLASH -> Expr.ArithmeticOp.DIVIDE;
                case PERCENT -> Expr.ArithmeticOp.MODULO;
                default -> null;
            };
            if (op == null) {
                return left;
            }
            advance();
            left = new Expr.Arithmetic(op, left, unary(), t.position());
        }
    }

    private Expr unary() {
        Token t = peek();
        if (t.kind() == Token.Kind.MINUS) {
            advance();
            Expr operand = unary();
            if (operand instanceof Expr.Literal lit && lit.value() instanceof Long v && lit.type() == null) {
                return new Expr.Literal(-v, null, t.position());
            }
            if (operand instanceof Expr.Literal lit && lit.value() instanceof Double v && lit.type() == null) {
                return new Expr.Literal(-v, null, t.position());
            }
            return new Expr.Negate(operand, t.position());
        }
        if (t.kind() == Token.Kind.PLUS) {
            advance();
            return unary();
        }
        return postfix(primary());
    }

    /** List subscripts {@code x[i]} after any primary (struct subscripts {@code x['f']} are part of column paths). */
    private Expr postfix(Expr e) {
        while (peek().kind() == Token.Kind.LBRACKET) {
            Token open = advance();
            Expr index = or();
            expect(Token.Kind.RBRACKET, "expected ']'");
            e = new Expr.Subscript(e, index, open.position());
        }
        return e;
    }

    private Expr primary() {
        Token t = advance();
        switch (t.kind()) {
            case INTEGER:
                try {
                    return new Expr.Literal(Long.parseLong(t.text()), null, t.position());
                } catch (NumberFormatException e) {
                    return new Expr.Literal(Double.parseDouble(t.text()), null, t.position());
                }
            case DECIMAL:
                return new Expr.Literal(Double.parseDouble(t.text()), null, t.position());
            case STRING:
                return new Expr.Literal(t.text(), null, t.position());
            case LPAREN: {
                Expr inner = or();
                expect(Token.Kind.RPAREN, "expected ')'");
                return inner;
            }
            case LBRACKET:
                return arrayLiteral(t);
            case QUOTED_IDENT:
                return columnPath(t);
            case IDENT:
                break;
            case EOF:
                throw error(t, "unexpected end of expression");
            default:
                throw error(t, "unexpected '" + t.text() + "'");
        }
        String word = t.text().toUpperCase(Locale.ROOT);
        switch (word) {
            case "NULL":
                return new Expr.Literal(null, null, t.position());
            case "TRUE":
                return new Expr.Literal(Boolean.TRUE, null, t.position());
            case "FALSE":
                return new Expr.Literal(Boolean.FALSE, null, t.position());
            case "CASE":
                return caseExpr(t);
            case "CAST": {
                expect(Token.Kind.LPAREN, "expected '(' after CAST");
                Expr operand = or();
                expectKeyword("AS", "expected AS in CAST");
                SqlType type = type();
                expect(Token.Kind.RPAREN, "expected ')' to close CAST");
                return new Expr.Cast(operand, type, t.position());
            }
            case "INTERVAL":
                if (peek().kind() == Token.Kind.STRING) {
                    // a deliberate rejection: lance-core 7.0.0's planner refuses INTERVAL too
                    throw error(t, "INTERVAL literals are not supported (Lance rejects them as well); "
                            + "compare with a DATE or TIMESTAMP literal instead");
                }
                break;
            case "DATE", "TIMESTAMP", "DECIMAL":
                if (peek().kind() == Token.Kind.STRING || peek().kind() == Token.Kind.LPAREN) {
                    i--; // re-read the type name
                    SqlType type = type();
                    Token value = advance();
                    if (value.kind() != Token.Kind.STRING) {
                        throw error(value, "expected a string after " + word);
                    }
                    return new Expr.Literal(value.text(), type, t.position());
                }
                break;
            default:
                break;
        }
        if (RESERVED.contains(word)) {
            throw error(t, "unexpected keyword " + word + " (quote it with backticks to use it as a column name)");
        }
        if (peek().kind() == Token.Kind.LPAREN) {
            return call(t);
        }
        if ((word.equals("CURRENT_DATE") || word.equals("CURRENT_TIMESTAMP")) && peek().kind() != Token.Kind.DOT) {
            return new Expr.Call(word.toLowerCase(Locale.ROOT), List.of(), t.position());
        }
        return columnPath(t);
    }

    private Expr call(Token name) {
        advance(); // (
        String fn = name.text().toLowerCase(Locale.ROOT);
        List<Expr> args = new ArrayList<>();
        if (fn.equals("extract") || fn.equals("date_part") && peekAt(1).isKeyword("FROM")) {
            Token field = advance();
            if (field.kind() != Token.Kind.IDENT && field.kind() != Token.Kind.STRING) {
                throw error(field, "expected a date part such as year or month");
            }
            expectKeyword("FROM", "expected FROM in EXTRACT(field FROM value)");
            args.add(new Expr.Literal(field.text().toLowerCase(Locale.ROOT), null, field.position()));
            args.add(or());
            expect(Token.Kind.RPAREN, "expected ')' to close EXTRACT");
            return new Expr.Call("date_part", args, name.position());
        }
        if (fn.equals("position")) {
            Expr needle = additive();
            expectKeyword("IN", "expected IN in POSITION(substring IN string)");
            Expr haystack = additive();
            expect(Token.Kind.RPAREN, "expected ')' to close POSITION");
            return new Expr.Call("strpos", List.of(haystack, needle), name.position());
        }
        if (peek().kind() != Token.Kind.RPAREN) {
            args.add(or());
            if ((fn.equals("substring") || fn.equals("substr")) && peek().isKeyword("FROM")) {
                advance();
                args.add(or());
                if (acceptKeyword("FOR")) {
                    args.add(or());
                }
            } else {
                while (accept(Token.Kind.COMMA)) {
                    args.add(or());
                }
            }
        }
        expect(Token.Kind.RPAREN, "expected ',' or ')' in the arguments of " + fn);
        return new Expr.Call(fn, List.copyOf(args), name.position());
    }

    private Expr caseExpr(Token start) {
        Expr operand = peek().isKeyword("WHEN") ? null : or();
        List<Expr> whens = new ArrayList<>();
        List<Expr> thens = new ArrayList<>();
        while (acceptKeyword("WHEN")) {
            whens.add(or());
            expectKeyword("THEN", "expected THEN in CASE");
            thens.add(or());
        }
        if (whens.isEmpty()) {
            throw error(peek(), "CASE needs at least one WHEN");
        }
        Expr otherwise = acceptKeyword("ELSE") ? or() : null;
        expectKeyword("END", "expected WHEN, ELSE or END in CASE");
        return new Expr.Case(operand, List.copyOf(whens), List.copyOf(thens), otherwise, start.position());
    }

    private Expr arrayLiteral(Token open) {
        List<Expr> items = new ArrayList<>();
        if (!accept(Token.Kind.RBRACKET)) {
            do {
                items.add(or());
            } while (accept(Token.Kind.COMMA));
            expect(Token.Kind.RBRACKET, "expected ',' or ']' in a list");
        }
        return new Expr.ArrayLiteral(List.copyOf(items), open.position());
    }

    private Expr columnPath(Token first) {
        List<String> path = new ArrayList<>();
        path.add(first.text());
        while (true) {
            if (accept(Token.Kind.DOT)) {
                Token part = advance();
                if (part.kind() != Token.Kind.IDENT && part.kind() != Token.Kind.QUOTED_IDENT) {
                    throw error(part, "expected a field name after '.'");
                }
                path.add(part.text());
            } else if (peek().kind() == Token.Kind.LBRACKET && peekAt(1).kind() == Token.Kind.STRING
                    && peekAt(2).kind() == Token.Kind.RBRACKET) {
                advance();
                path.add(advance().text());
                advance();
            } else {
                return new Expr.Column(List.copyOf(path), first.position());
            }
        }
    }

    private SqlType type() {
        Token t = advance();
        if (t.kind() != Token.Kind.IDENT) {
            throw error(t, "expected a type name");
        }
        String name = t.text().toUpperCase(Locale.ROOT);
        switch (name) {
            case "BOOLEAN", "BOOL":
                return SqlType.of(SqlType.Kind.BOOLEAN);
            case "TINYINT":
                return SqlType.of(unsigned() ? SqlType.Kind.UINT8 : SqlType.Kind.INT8);
            case "SMALLINT":
                return SqlType.of(unsigned() ? SqlType.Kind.UINT16 : SqlType.Kind.INT16);
            case "INT", "INTEGER":
                return SqlType.of(unsigned() ? SqlType.Kind.UINT32 : SqlType.Kind.INT32);
            case "BIGINT":
                return SqlType.of(unsigned() ? SqlType.Kind.UINT64 : SqlType.Kind.INT64);
            case "FLOAT", "REAL":
                return SqlType.of(SqlType.Kind.FLOAT32);
            case "DOUBLE":
                return SqlType.of(SqlType.Kind.FLOAT64);
            case "DATE":
                return SqlType.of(SqlType.Kind.DATE);
            case "STRING", "VARCHAR", "TEXT":
                return SqlType.of(SqlType.Kind.STRING);
            case "BINARY", "VARBINARY":
                return SqlType.of(SqlType.Kind.BINARY);
            case "TIMESTAMP": {
                int precision = 6;
                if (accept(Token.Kind.LPAREN)) {
                    precision = intArg("timestamp precision");
                    if (precision != 0 && precision != 3 && precision != 6 && precision != 9) {
                        throw error(tokens.get(i - 1), "timestamp precision must be 0, 3, 6 or 9");
                    }
                    expect(Token.Kind.RPAREN, "expected ')'");
                }
                return new SqlType(SqlType.Kind.TIMESTAMP, precision, 0);
            }
            case "DECIMAL": {
                expect(Token.Kind.LPAREN, "expected '(' after DECIMAL");
                int precision = intArg("decimal precision");
                expect(Token.Kind.COMMA, "expected ',' in DECIMAL(precision, scale)");
                int scale = intArg("decimal scale");
                expect(Token.Kind.RPAREN, "expected ')'");
                if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
                    throw error(t, "invalid DECIMAL(" + precision + "," + scale + ")");
                }
                return new SqlType(SqlType.Kind.DECIMAL, precision, scale);
            }
            default:
                throw error(t, "unknown type " + t.text());
        }
    }

    private boolean unsigned() {
        return acceptKeyword("UNSIGNED");
    }

    private int intArg(String what) {
        Token t = advance();
        if (t.kind() != Token.Kind.INTEGER) {
            throw error(t, "expected an integer " + what);
        }
        try {
            return Integer.parseInt(t.text());
        } catch (NumberFormatException e) {
            throw error(t, what + " out of range");
        }
    }

    private Token peek() {
        return tokens.get(i);
    }

    private Token peekAt(int ahead) {
        return tokens.get(Math.min(i + ahead, tokens.size() - 1));
    }

    private Token advance() {
        Token t = tokens.get(i);
        if (t.kind() != Token.Kind.EOF) {
            i++;
        }
        return t;
    }

    private boolean accept(Token.Kind kind) {
        if (peek().kind() == kind) {
            i++;
            return true;
        }
        return false;
    }

    private boolean acceptKeyword(String keyword) {
        if (peek().isKeyword(keyword)) {
            i++;
            return true;
        }
        return false;
    }

    private void expect(Token.Kind kind, String message) {
        if (!accept(kind)) {
            throw error(peek(), message);
        }
    }

    private void expectKeyword(String keyword, String message) {
        if (!acceptKeyword(keyword)) {
            throw error(peek(), message);
        }
    }

    private FilterParseException error(Token at, String message) {
        String found = at.kind() == Token.Kind.EOF ? "end of expression" : "'" + at.text() + "'";
        return new FilterParseException(src, at.position(), message + " (found " + found + ")");
    }
}
