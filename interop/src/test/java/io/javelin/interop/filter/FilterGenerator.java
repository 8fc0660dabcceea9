package io.javelin.interop.filter;

import java.util.Random;

/**
 * Random filter expressions over {@link FilterData}'s columns, built only from forms lance-core 7.0.0
 * accepts: string, list, conditional and numeric functions nested inside comparisons and AND/OR/NOT.
 * Left out on purpose (Javelin accepts them, lance-core does not, or lance-core's answer is not SQL's):
 * float literals compared with integer columns, regexp_match under IS [NOT] TRUE/FALSE, non-BMP characters
 * in literals (lance-core's JNI passes modified UTF-8), and two IN lists on one column in one filter
 * (DataFusion folds {@code x IN (a) AND x IN (b)} to FALSE even where x is NULL).
 */
final class FilterGenerator {

    private static final String[] STRING_COLS = {"s", "s2", "st.y"};
    private static final String[] LITERALS = {"apple", "APPLE", "ab", "abc", "straße", "STRASSE", "äpfel", "ÄPFEL",
        "日本語", "", "pad", " pad ", "a_b%c", "50%", "Banana", "banana", "ap", "le", "x", "ΩMEGA", "emoji"};
    private static final String[] PATTERNS = {"a%", "%a", "%an%", "_b", "a\\_%", "50\\%", "%ß%", "%i_", "A%", "%E", "___"};
    private static final String[] REGEXES = {"^a", "e$", "an+", "^.{3}$", "[0-9]", "\\w+", "^\\s", "(a)(p)", "ß|ss", "^[A-Z]",
        "日", "(?i)apple"};
    private static final String[] TAGS = {"a", "b", "c", "dog", "cat", "Ä", "", "x y", "zz"};
    private static final String[] OPS = {"=", "<>", "<", "<=", ">", ">="};

    private final Random r;

    FilterGenerator(long seed) {
        this.r = new Random(seed);
    }

    String next() {
        while (true) {
            String f = bool(0);
            if (f.indexOf(" IN (") == f.lastIndexOf(" IN (")) {
                return f;
            }
        }
    }

    private String pick(String[] a) {
        return a[r.nextInt(a.length)];
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    String bool(int depth) {
        int k = r.nextInt(depth >= 2 ? 10 : 14);
        return switch (k) {
            case 0, 1, 2 -> stringPredicate(depth);
            case 3, 4 -> numericPredicate(depth);
            case 5 -> listPredicate();
            case 6 -> r.nextBoolean() ? listPredicate() : jsonPredicate();
            case 7 -> r.nextInt(3) == 0 ? (r.nextBoolean() ? "bo" : "bo = " + r.nextBoolean()) : temporalPredicate();
            case 8 -> "(" + stringExpr(depth + 1) + ") IS " + (r.nextBoolean() ? "" : "NOT ") + "NULL";
            case 9 -> numExpr(depth + 1) + " IS " + (r.nextBoolean() ? "" : "NOT ") + "NULL";
            case 10, 11 -> "(" + bool(depth + 1) + (r.nextBoolean() ? " AND " : " OR ") + bool(depth + 1) + ")";
            case 12 -> "NOT (" + bool(depth + 1) + ")";
            default -> {
                String inner = bool(depth + 1);
                while (inner.contains("regexp_match")) {
                    inner = bool(depth + 1);
                }
                yield "(" + inner + ") IS " + (r.nextBoolean() ? "NOT " : "") + (r.nextBoolean() ? "TRUE" : "FALSE");
            }
        };
    }

    String stringExpr(int depth) {
        if (depth >= 3) {
            return pick(STRING_COLS);
        }
        int k = r.nextInt(16);
        String inner = k < 5 ? pick(STRING_COLS) : stringExpr(depth + 1);
        return switch (k) {
            case 0, 1, 2, 3, 4 -> inner;
            case 5 -> "lower(" + inner + ")";
            case 6 -> "upper(" + inner + ")";
            case 7 -> "ltrim(" + inner + ")";
            case 8 -> "rtrim(" + inner + (r.nextBoolean() ? ", ' e'" : "") + ")";
            case 9 -> "btrim(" + inner + (r.nextBoolean() ? ", ' a'" : "") + ")";
            case 10 -> "replace(" + inner + ", 'a', " + quote(pick(new String[] {"", "A", "xx"})) + ")";
            case 11 -> "coalesce(" + inner + ", " + quote(pick(LITERALS)) + ")";
            case 12 -> inner + " || " + quote(pick(new String[] {"", "x", "ß"}));
            case 13 -> "concat(" + inner + ", " + pick(STRING_COLS) + ")";
            case 14 -> "regexp_replace(" + inner + ", " + quote(pick(new String[] {"a", "p+", "(a)(p)", "^."}))
                    + ", " + quote(pick(new String[] {"X", "\\2\\1", "$1", ""})) + (r.nextBoolean() ? ", 'g'" : "") + ")";
            default -> "nullif(" + inner + ", " + quote(pick(LITERALS)) + ")";
        };
    }

    private String stringPredicate(int depth) {
        String s = stringExpr(depth + 1);
        int k = r.nextInt(12);
        return switch (k) {
            case 0 -> s + " = " + quote(pick(LITERALS));
            case 1 -> s + " " + pick(OPS) + " " + quote(pick(LITERALS));
            case 2 -> "starts_with(" + s + ", " + quote(pick(new String[] {"a", "A", "ä", "Ä", "", "日", "st"})) + ")";
            case 3 -> "ends_with(" + s + ", " + quote(pick(new String[] {"e", "E", "ß", "ji", "", "ab", "d "})) + ")";
            case 4 -> "contains(" + s + ", " + quote(pick(new String[] {"an", "p", "ß", "_", "%", "", "本"})) + ")";
            case 5 -> s + (r.nextBoolean() ? " LIKE " : " NOT LIKE ") + quote(pick(PATTERNS));
            case 6 -> s + (r.nextBoolean() ? " ILIKE " : " NOT ILIKE ") + quote(pick(PATTERNS));
            case 7 -> "regexp_like(" + s + ", " + quote(pick(REGEXES)) + (r.nextInt(4) == 0 ? ", 'i'" : "") + ")";
            case 8 -> "regexp_match(" + s + ", " + quote(pick(REGEXES)) + ")";
            case 9 -> s + " IN (" + quote(pick(LITERALS)) + ", " + quote(pick(LITERALS)) + ")";
            case 10 -> "starts_with(" + s + ", " + pick(STRING_COLS) + ")";
            default -> "contains(" + pick(STRING_COLS) + ", " + s + ")";
        };
    }

    String numExpr(int depth) {
        int k = r.nextInt(depth >= 3 ? 6 : 20);
        return switch (k) {
            case 0 -> "i";
            case 1 -> "b";
            case 2 -> "f";
            case 3 -> "st.x";
            case 4 -> r.nextInt(4) == 0 ? pick(new String[] {"_rowid", "_rowaddr % 1000"}) : "id";
            case 5 -> String.valueOf(r.nextInt(7));
            case 6 -> "abs(" + numExpr(depth + 1) + ")";
            case 7 -> "round(f" + (r.nextBoolean() ? ", 1" : "") + ")";
            case 8 -> "length(" + stringExpr(depth + 1) + ")";
            case 9 -> "strpos(" + stringExpr(depth + 1) + ", " + quote(pick(new String[] {"a", "p", "ß", "e", ""})) + ")";
            case 10 -> "coalesce(" + pick(new String[] {"i", "st.x", "b"}) + ", " + pick(new String[] {"0", "i", "b", "7"}) + ")";
            case 11 -> "nullif(" + pick(new String[] {"i", "b"}) + ", " + r.nextInt(3) + ")";
            case 12 -> "cardinality(" + pick(new String[] {"tags", "nums"}) + ")";
            case 13 -> "array_length(" + pick(new String[] {"tags", "nums"}) + ")";
            case 14 -> "array_position(tags, " + quote(pick(TAGS)) + ")";
            case 15 -> "nums[" + (r.nextInt(5) - 2) + "]";
            case 16 -> numExpr(depth + 1) + " + " + numExpr(depth + 1);
            case 17 -> "b % 7";
            case 18 -> "octet_length(" + stringExpr(depth + 1) + ")";
            default -> "i * 2 - b";
        };
    }

    private String numericPredicate(int depth) {
        String n = numExpr(depth + 1);
        return switch (r.nextInt(4)) {
            case 0 -> n + " IN (" + r.nextInt(5) + ", " + r.nextInt(5) + ", " + (r.nextInt(20) - 10) + ")";
            case 1 -> n + " BETWEEN " + (r.nextInt(10) - 5) + " AND " + r.nextInt(10);
            case 2 -> pick(new String[] {"f", "round(f, 1)", "abs(f)", "f * 2", "coalesce(f, 0.5)"}) + " " + pick(OPS) + " "
                    + (r.nextInt(11) - 5) + "." + r.nextInt(10);
            default -> n + " " + pick(OPS) + " " + (r.nextInt(20) - 5);
        };
    }

    private String temporalPredicate() {
        String[] dateParts = {"year", "quarter", "month", "week", "day", "dow", "doy"};
        String[] timeParts = {"year", "month", "day", "hour", "minute", "dow", "doy", "week"};
        String[] truncs = {"year", "quarter", "month", "week", "day", "hour", "minute"};
        return switch (r.nextInt(7)) {
            case 0 -> "date_part(" + quote(pick(dateParts)) + ", d) " + pick(OPS) + " " + r.nextInt(30);
            case 1 -> "date_part(" + quote(pick(timeParts)) + ", t) " + pick(OPS) + " " + r.nextInt(30);
            case 2 -> "date_part('year', " + pick(new String[] {"d", "t"}) + ") = " + (2019 + r.nextInt(5));
            case 3 -> "date_trunc(" + quote(pick(truncs)) + ", t) " + pick(OPS) + " TIMESTAMP '202" + r.nextInt(4) + "-0"
                    + (1 + r.nextInt(9)) + "-01 00:00:00'";
            case 4 -> "date_trunc(" + quote(pick(new String[] {"year", "quarter", "month", "week"})) + ", d) "
                    + pick(OPS) + " DATE '202" + r.nextInt(3) + "-0" + (1 + r.nextInt(9)) + "-01'";
            case 5 -> pick(new String[] {"d < current_date", "t < now()", "d > now()", "t > current_date"});
            default -> "date_part('epoch', t) > " + (1_600_000_000L + r.nextInt(100_000_000));
        };
    }

    private static final String[] JSON_PATHS = {"$.o.k", "$.arr[0]", "$.arr[last]", "$.o.l[1].m", "$.f", "$.name", "$.n",
        "$.u", "$.\"name\"", "$[\"x\"]", "$", "$.o", "$.arr", "$[0]", "$.ok", "$.o.l[last - 1]", "$.nope", "", "name"};
    private static final String[] JSON_TEXT = {"\"a\"", "\"b\"", "2", "3", "1e+300", "-0.0", "0.1", "1.5e-7", "1.2345678901234568e+20",
        "18446744073709551615", "-9223372036854775808", "2.5", "100.0", "true", "null", "[]", "{}", "\"x y\"", "\"7\"", "-3.5",
        "{\"k\":1}", "[\"a\",\"b\"]"};

    /** JSON functions over the lance.json column {@code jb}, on keys whose values always convert. */
    String jsonPredicate() {
        return switch (r.nextInt(12)) {
            case 0 -> "json_get_int(jb, " + quote(pick(new String[] {"n", "0", "x", "f", "nope"})) + ") " + pick(OPS) + " " + (r.nextInt(12) - 3);
            case 1 -> "json_get_float(jb, " + quote(pick(new String[] {"n", "x", "f", "0"})) + ") " + pick(OPS) + " " + (r.nextInt(100) - 20) / 10.0;
            case 2 -> "json_get_string(jb, " + quote(pick(new String[] {"name", "n", "x", "u", "ok", "0", "f"})) + ") "
                    + pick(new String[] {"= 'a'", "= '3'", "= 'true'", "< 'c'", "= '1e+300'", "= '-0.0'", "= '0.1'", "= '1.5e-7'", "IS NULL",
                        "LIKE '%.%'", "= 'No'", "= '18446744073709551615'", "= '123456789012345680000.0'", "= '1.2345678901234568e+20'"});
            case 3 -> "json_get_bool(jb, 'ok')" + pick(new String[] {"", " = false", " IS NULL", " IS NOT TRUE"});
            case 4 -> "json_extract(jb, " + quote(pick(JSON_PATHS)) + ") " + pick(new String[] {"=", "<>", "<"}) + " " + quote(pick(JSON_TEXT));
            case 5 -> "json_extract(jb, " + quote(pick(JSON_PATHS)) + ") IS " + (r.nextBoolean() ? "" : "NOT ") + "NULL";
            case 6 -> "json_exists(jb, " + quote(pick(JSON_PATHS)) + ")";
            case 7 -> "json_array_contains(jb, " + quote(pick(new String[] {"$.arr", "$.o.l", "$", "$.nope", "$.o"})) + ", "
                    + quote(pick(new String[] {"a", "b", "\"a\"", "1", "0", "x", "3", "true", "{\"m\":\"a\"}"})) + ")";
            case 8 -> "json_array_length(jb, " + quote(pick(new String[] {"$.arr", "$.o.l", "$", "$.nope", "$[1]"})) + ") " + pick(OPS) + " " + r.nextInt(3);
            case 9 -> "json_get_int(json_get(jb, 'o'), 'k') " + pick(OPS) + " " + r.nextInt(5);
            case 10 -> "json_get_string(json_get(json_get(jb, 'o'), 'l'), '0') = " + quote(String.valueOf(r.nextInt(3)));
            default -> "json_get(jb, " + quote(pick(new String[] {"o", "n", "arr", "0", "nope"})) + ") IS " + (r.nextBoolean() ? "" : "NOT ") + "NULL";
        };
    }

    private String tagList(int max) {
        StringBuilder sb = new StringBuilder("[");
        int n = 1 + r.nextInt(max);
        for (int k = 0; k < n; k++) {
            sb.append(k == 0 ? "" : ", ").append(quote(pick(TAGS)));
        }
        return sb.append(']').toString();
    }

    private String listPredicate() {
        return switch (r.nextInt(11)) {
            case 0 -> "array_has(tags, " + quote(pick(TAGS)) + ")";
            case 1 -> "array_contains(tags, " + quote(pick(TAGS)) + ")";
            case 2 -> "list_contains(nums, " + r.nextInt(10) + ")";
            case 3 -> "array_has_any(tags, " + tagList(3) + ")";
            case 4 -> "array_has_all(tags, " + tagList(2) + ")";
            case 5 -> "array_has_any(nums, [" + r.nextInt(10) + ", " + r.nextInt(10) + "])";
            case 6 -> "tags[" + (r.nextInt(5) - 2) + "] = " + quote(pick(TAGS));
            case 7 -> "empty(" + pick(new String[] {"tags", "nums"}) + ")";
            case 8 -> "array_has(tags, " + pick(STRING_COLS) + ")";
            case 9 -> "array_has_all(nums, [" + r.nextInt(10) + "])";
            default -> "array_position(nums, " + r.nextInt(10) + ") " + pick(OPS) + " " + r.nextInt(3);
        };
    }
}
