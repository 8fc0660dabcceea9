package io.javelin.engine.index;

import java.util.List;

/**
 * A full-text query, Lance's {@code FullTextQuery} shapes: {@link Match} (OR / AND over the
 * analysed query tokens) and {@link Phrase} (tokens in order, within {@code slop} extra positions;
 * needs an index built {@code with_position}). Queries are values; run them with
 * {@code dataset.fullTextSearch(query)}.
 */
public sealed interface FtsQuery {

    /** The column searched. */
    String column();

    enum Operator {
        OR, AND;

        public static Operator parse(String s) {
            return switch (s.toLowerCase(java.util.Locale.ROOT)) {
                case "or" -> OR;
                case "and" -> AND;
                default -> throw new IllegalArgumentException("operator must be 'or' or 'and', got '" + s + "'");
            };
        }
    }

    record Match(String column, String text, Operator operator) implements FtsQuery {
        public Match {
            requireColumn(column);
            java.util.Objects.requireNonNull(text, "text");
            java.util.Objects.requireNonNull(operator, "operator");
        }
    }

    record Phrase(String column, String text, int slop) implements FtsQuery {
        public Phrase {
            requireColumn(column);
            java.util.Objects.requireNonNull(text, "text");
            if (slop < 0) {
                throw new IllegalArgumentException("slop must be >= 0, got " + slop);
            }
        }
    }

    static Match match(String column, String text) {
        return new Match(column, text, Operator.OR);
    }

    static Match match(String column, String text, Operator op) {
        return new Match(column, text, op);
    }

    static Phrase phrase(String column, String text, int slop) {
        return new Phrase(column, text, slop);
    }

    private static void requireColumn(String c) {
        if (c == null || c.isEmpty()) {
            throw new IllegalArgumentException("a full-text query needs a column");
        }
    }

    /** Internal: every column a query touches. */
    static List<String> columns(FtsQuery q) {
        return List.of(q.column());
    }
}
