package io.javelin.spark.cli;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;

/** RFC 4180 CSV: a field with a comma, quote or line break is quoted (quotes doubled); NULL is empty. */
final class Csv {

    private Csv() {
    }

    static String row(Row r) {
        List<String> out = new ArrayList<>(r.length());
        for (int i = 0; i < r.length(); i++) {
            Object v = r.get(i);
            out.add(v == null ? "" : field(text(v)));
        }
        return String.join(",", out);
    }

    private static String text(Object v) {
        if (v instanceof byte[] b) {
            return java.util.HexFormat.of().formatHex(b);
        }
        if (v instanceof scala.collection.Seq<?> s) {
            return s.mkString("[", ", ", "]");
        }
        return v.toString();
    }

    static String field(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0 && s.indexOf('\r') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
