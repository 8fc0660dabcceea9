package io.javelin.engine.filter;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * regexp_like, regexp_match and regexp_replace with constant patterns and flags (i, m, s, x; g for replace),
 * compiled once per filter; Unicode character classes as in Rust's regex crate. Rows are decoded into a
 * reused char buffer, so matching allocates no per-row objects.
 */
final class Regex {

    private Regex() {
    }

    static void register(Functions.Registry r) {
        r.add("regexp_like", 2, 3, Regex::like);
        r.add("regexp_match", 2, 3, Regex::match);
        r.add("regexp_replace", 3, 4, Regex::replace);
    }

    private static Pattern compile(Expr.Call c, List<Predicate.Node> a, Binding b, int flagsAt, boolean allowGlobal) {
        Functions.requireString(c, a, 0, b);
        String pattern = Functions.constantString(c, a, 1, b, "pattern");
        int flags = Pattern.UNICODE_CHARACTER_CLASS;
        if (a.size() > flagsAt) {
            for (char f : Functions.constantString(c, a, flagsAt, b, "flags").toCharArray()) {
                flags |= switch (f) {
                    case 'i' -> Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE;
                    case 'm' -> Pattern.MULTILINE;
                    case 's' -> Pattern.DOTALL;
                    case 'x' -> Pattern.COMMENTS;
                    case 'g' -> {
                        if (!allowGlobal) {
                            throw b.error(c.args().get(flagsAt), c.name() + " does not support the global flag 'g'");
                        }
                        yield 0;
                    }
                    default -> throw b.error(c.args().get(flagsAt), "unsupported regular expression flag '" + f + "'");
                };
            }
        }
        try {
            return Pattern.compile(pattern, flags);
        } catch (PatternSyntaxException e) {
            throw b.error(c.args().get(1), "invalid regular expression: " + e.getDescription());
        }
    }

    private static Predicate.Node like(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Pattern p = compile(c, a, b, 2, false);
        List<Predicate.Node> in = List.of(a.getFirst());
        return Nodes.of(ValueType.BOOL, (batch, rows) -> {
            Matcher m = p.matcher("");
            Utf8.Chars chars = new Utf8.Chars();
            return Strict.bool(in, (v, i) -> {
                Values.Bytes s = Strict.str(v, 0);
                Utf8.decode(s, s.start(i), s.end(i), chars);
                return m.reset(chars).find();
            }).eval(batch, rows);
        });
    }

    /** regexp_match: the capture groups of the first match (the whole match when there are none), or NULL. */
    private static Predicate.Node match(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Pattern p = compile(c, a, b, 2, false);
        Predicate.Node s0 = a.getFirst();
        if (s0.type().isNull()) {
            return Nodes.nul();
        }
        return Nodes.of(ValueType.list(ValueType.STRING), (batch, rows) -> {
            Values.Bytes s = (Values.Bytes) s0.eval(batch, rows);
            Matcher m = p.matcher("");
            Utf8.Chars chars = new Utf8.Chars();
            int[] offsets = new int[rows + 1];
            long[] valid = new long[Bits.words(rows)];
            int groups = Math.max(1, m.groupCount());
            BytesOut items = new BytesOut(rows * groups, rows * 8);
            int n = 0;
            for (int i = 0; i < rows; i++) {
                if (s.isValid(i)) {
                    Utf8.decode(s, s.start(i), s.end(i), chars);
                    if (m.reset(chars).find()) {
                        Bits.set(valid, i);
                        for (int g = m.groupCount() == 0 ? 0 : 1; g <= m.groupCount(); g++) {
                            if (m.start(g) < 0) {
                                items.endNull();
                            } else {
                                items.put(chars.subSequence(m.start(g), m.end(g)).toString()
                                        .getBytes(java.nio.charset.StandardCharsets.UTF_8));
                                items.end();
                            }
                            n++;
                        }
                    }
                }
                offsets[i + 1] = n;
            }
            Values.Bytes built = items.build();
            Values.Bytes trimmed = Values.Bytes.heap(built.heapOffsets(), built.heapData(), built.valid(), n);
            return new Values.Lists(offsets, trimmed, valid, false, rows);
        });
    }

    private static Predicate.Node replace(Expr.Call c, List<Predicate.Node> a, Binding b) {
        Pattern p = compile(c, a, b, 3, true);
        Functions.requireString(c, a, 2, b);
        boolean global = a.size() == 4 && Functions.constantString(c, a, 3, b, "flags").indexOf('g') >= 0;
        List<Predicate.Node> in = List.of(a.get(0), a.get(2));
        return Nodes.of(ValueType.STRING, (batch, rows) -> {
            Matcher m = p.matcher("");
            Utf8.Chars chars = new Utf8.Chars();
            StringBuilder sb = new StringBuilder();
            return Strict.bytes(ValueType.STRING, in, (v, i, out) -> {
                Values.Bytes s = Strict.str(v, 0);
                Utf8.decode(s, s.start(i), s.end(i), chars);
                String replacement = Utf8.string(Strict.str(v, 1), i);
                m.reset(chars);
                sb.setLength(0);
                int last = 0;
                while (m.find()) {
                    sb.append(chars, last, m.start());
                    expand(replacement, m, sb);
                    last = m.end();
                    if (!global) {
                        break;
                    }
                }
                sb.append(chars, last, chars.length());
                out.put(sb.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
                return true;
            }).eval(batch, rows);
        });
    }

    /** Expands a replacement: {@code \N}, {@code $N} and {@code ${N}} are groups (as DataFusion rewrites them), {@code $$} is '$'. */
    static void expand(String r, Matcher m, StringBuilder sb) {
        for (int k = 0; k < r.length(); k++) {
            char ch = r.charAt(k);
            if ((ch == '\\' || ch == '$') && k + 1 < r.length()) {
                char next = r.charAt(k + 1);
                if (ch == '$' && next == '$') {
                    sb.append('$');
                    k++;
                    continue;
                }
                int from = k + 1;
                boolean braces = ch == '$' && next == '{';
                if (braces) {
                    from++;
                }
                int to = from;
                while (to < r.length() && (ch == '$' ? isNameChar(r.charAt(to)) : Character.isDigit(r.charAt(to)))) {
                    to++;
                }
                if (to > from && (!braces || to < r.length() && r.charAt(to) == '}')) {
                    String name = r.substring(from, to);
                    String g = group(m, name);
                    if (g != null) {
                        sb.append(g);
                    }
                    k = braces ? to : to - 1;
                    continue;
                }
            }
            sb.append(ch);
        }
    }

    private static boolean isNameChar(char c) {
        return c == '_' || Character.isLetterOrDigit(c) && c < 128;
    }

    private static String group(Matcher m, String name) {
        try {
            if (name.chars().allMatch(Character::isDigit)) {
                int g = Integer.parseInt(name);
                return g <= m.groupCount() ? m.group(g) : null;
            }
            return m.group(name);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
