package io.javelin.spark.cli;

import java.util.ArrayList;
import java.util.List;

/** Splits a script at semicolons outside quotes ('...', "...", `...`) and comments (-- to end of line). */
final class Statements {

    private Statements() {
    }

    static List<String> split(String sql) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        char quote = 0;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (quote != 0) {
                cur.append(c);
                if (c == '\\' && quote != '`' && i + 1 < sql.length()) {
                    cur.append(sql.charAt(++i));
                } else if (c == quote) {
                    quote = 0;
                }
            } else if (c == '-' && i + 1 < sql.length() && sql.charAt(i + 1) == '-') {
                while (i < sql.length() && sql.charAt(i) != '\n') {
                    i++;
                }
                cur.append('\n');
            } else if (c == ';') {
                add(out, cur);
            } else {
                if (c == '\'' || c == '"' || c == '`') {
                    quote = c;
                }
                cur.append(c);
            }
        }
        add(out, cur);
        return out;
    }

    private static void add(List<String> out, StringBuilder cur) {
        String s = cur.toString().trim();
        if (!s.isEmpty()) {
            out.add(s);
        }
        cur.setLength(0);
    }
}
