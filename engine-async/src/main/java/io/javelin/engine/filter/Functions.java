package io.javelin.engine.filter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The function registry: name → arity and binder. Each family ({@link StringFunctions}, {@link ListFunctions},
 * {@link ConditionalFunctions}, {@link MathFunctions}, {@link JsonFunctions}, {@link TemporalFunctions}) registers
 * its functions; unknown names, wrong arity and argument type mismatches are {@link FilterParseException}s
 * at the position of the call or the offending argument.
 */
final class Functions {

    /** Binds one call whose arguments are already bound. */
    @FunctionalInterface
    interface FunctionBinder {
        Predicate.Node bind(Expr.Call call, List<Predicate.Node> args, Binding b);
    }

    /** Binds one call from its unbound arguments (for functions that bind arguments specially). */
    @FunctionalInterface
    interface RawBinder {
        Predicate.Node bind(Expr.Call call, Binding b);
    }

    record Signature(String name, int minArgs, int maxArgs, FunctionBinder binder, RawBinder raw) {
    }

    /** Registration target handed to each family. */
    static final class Registry {
        private final Map<String, Signature> byName = new TreeMap<>();

        void add(String name, int minArgs, int maxArgs, FunctionBinder binder) {
            byName.put(name, new Signature(name, minArgs, maxArgs, binder, null));
        }

        void addRaw(String name, int minArgs, int maxArgs, RawBinder binder) {
            byName.put(name, new Signature(name, minArgs, maxArgs, null, binder));
        }

        void alias(String alias, String of) {
            Signature s = byName.get(of);
            byName.put(alias, new Signature(alias, s.minArgs, s.maxArgs, s.binder, s.raw));
        }
    }

    private static final Map<String, Signature> FUNCTIONS;

    static {
        Registry r = new Registry();
        StringFunctions.register(r);
        ListFunctions.register(r);
        ConditionalFunctions.register(r);
        MathFunctions.register(r);
        JsonFunctions.register(r);
        TemporalFunctions.register(r);
        FUNCTIONS = Map.copyOf(r.byName);
    }

    private Functions() {
    }

    /** The names of every supported function, sorted. */
    static List<String> names() {
        return FUNCTIONS.keySet().stream().filter(n -> Character.isLetter(n.charAt(0))).sorted().toList();
    }

    static Predicate.Node bind(Expr.Call call, Binding b) {
        Signature s = FUNCTIONS.get(call.name());
        if (s == null) {
            String near = nearest(call.name());
            throw b.error(call, "unknown function '" + call.name() + "'" + (near == null ? "" : " (did you mean " + near + "?)"));
        }
        int n = call.args().size();
        if (n < s.minArgs() || n > s.maxArgs()) {
            throw b.error(call, "function " + call.name() + " takes " + arity(s) + ", got " + n);
        }
        if (s.raw() != null) {
            return s.raw().bind(call, b);
        }
        List<Predicate.Node> args = new ArrayList<>(n);
        for (Expr e : call.args()) {
            args.add(b.bind(e));
        }
        return s.binder().bind(call, args, b);
    }

    /** The supported name closest to {@code name} (edit distance at most 2), or null. */
    static String nearest(String name) {
        String best = null;
        int bestDistance = 3;
        for (String n : names()) {
            int d = distance(name, n);
            if (d < bestDistance) {
                best = n;
                bestDistance = d;
            }
        }
        return best;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                cur[j] = Math.min(Math.min(cur[j - 1], prev[j]) + 1, prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }

    private static String arity(Signature s) {
        String count = s.minArgs() == s.maxArgs() ? String.valueOf(s.minArgs())
                : s.maxArgs() == Integer.MAX_VALUE ? "at least " + s.minArgs()
                : s.minArgs() + " to " + s.maxArgs();
        return count + (s.minArgs() == 1 && s.maxArgs() == 1 ? " argument" : " arguments");
    }

    /** Requires argument {@code i} to be of one of {@code kinds} (or NULL); the error names the function and the argument. */
    static void require(Expr.Call call, List<Predicate.Node> args, int i, Binding b, String what, ValueType.Kind... kinds) {
        ValueType t = args.get(i).type();
        if (t.isNull()) {
            return;
        }
        for (ValueType.Kind k : kinds) {
            if (t.kind() == k) {
                return;
            }
        }
        throw b.error(call.args().get(i), call.name() + " needs " + what + " as argument " + (i + 1)
                + ", not " + t.description());
    }

    static void requireString(Expr.Call call, List<Predicate.Node> args, int i, Binding b) {
        require(call, args, i, b, "a string", ValueType.Kind.STRING);
    }

    static void requireInteger(Expr.Call call, List<Predicate.Node> args, int i, Binding b) {
        require(call, args, i, b, "an integer", ValueType.Kind.INT, ValueType.Kind.UINT);
    }

    static void requireNumeric(Expr.Call call, List<Predicate.Node> args, int i, Binding b) {
        require(call, args, i, b, "a number", ValueType.Kind.INT, ValueType.Kind.UINT, ValueType.Kind.FLOAT,
                ValueType.Kind.DECIMAL);
    }

    /** The text of a constant string argument, or an error at it when it is not one. */
    static String constantString(Expr.Call call, List<Predicate.Node> args, int i, Binding b, String what) {
        if (args.get(i) instanceof Predicate.Constant c && c.type().kind() == ValueType.Kind.STRING && c.text() != null) {
            return c.text();
        }
        throw b.error(call.args().get(i), call.name() + " needs a constant string " + what + " as argument " + (i + 1));
    }
}
