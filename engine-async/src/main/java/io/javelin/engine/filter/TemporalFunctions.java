package io.javelin.engine.filter;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Date and timestamp functions: {@code date_part}/{@code extract}, {@code date_trunc}, {@code now()},
 * {@code current_date}. Timestamps are read as UTC; civil dates come from day numbers arithmetically
 * (no per-row objects). {@code now()} and {@code current_date} are fixed when the filter is compiled, as
 * DataFusion fixes them per query.
 */
final class TemporalFunctions {

    private static final long NANOS_PER_DAY = 86_400_000_000_000L;
    private static final Set<String> PARTS = Set.of("year", "quarter", "month", "week", "day", "hour", "minute", "second",
            "millisecond", "microsecond", "dow", "doy", "epoch"); // DataFusion rejects nanosecond
    private static final Set<String> TRUNCS = Set.of("year", "quarter", "month", "week", "day", "hour", "minute", "second",
            "millisecond", "microsecond");

    private TemporalFunctions() {
    }

    static void register(Functions.Registry r) {
        r.add("now", 0, 0, (c, a, b) -> {
            Instant t = Instant.now();
            return Predicate.Constant.ofLong(t.getEpochSecond() * 1_000_000_000L + t.getNano(), ValueType.timestamp(1));
        });
        r.alias("current_timestamp", "now");
        r.add("current_date", 0, 0, (c, a, b) ->
                Predicate.Constant.ofLong(LocalDate.now(ZoneOffset.UTC).toEpochDay(), ValueType.DATE));
        r.add("date_part", 2, 2, TemporalFunctions::datePart);
        r.alias("datepart", "date_part");
        r.add("date_trunc", 2, 2, TemporalFunctions::dateTrunc);
        r.alias("datetrunc", "date_trunc");
    }

    private static String part(Expr.Call c, List<Predicate.Node> a, Binding b, Set<String> allowed) {
        String part = Functions.constantString(c, a, 0, b, "date part").toLowerCase(Locale.ROOT);
        if (!allowed.contains(part)) {
            throw b.error(c.args().getFirst(), c.name() + " does not support the part '" + part + "' (one of "
                    + new java.util.TreeSet<>(allowed) + ")");
        }
        Functions.require(c, a, 1, b, "a date or timestamp", ValueType.Kind.DATE, ValueType.Kind.TIMESTAMP);
        return part;
    }

    private static long unit(ValueType t) {
        return t.kind() == ValueType.Kind.DATE ? NANOS_PER_DAY : t.unitNanos();
    }

    /** Civil date of a day number (Howard Hinnant's algorithm): {year, month, day}. */
    static long[] civil(long days) {
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        long y = yoe + era * 400;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        long d = doy - (153 * mp + 2) / 5 + 1;
        long m = mp < 10 ? mp + 3 : mp - 9;
        return new long[] {m <= 2 ? y + 1 : y, m, d};
    }

    /** Day number of a civil date. */
    static long days(long y, long m, long d) {
        y -= m <= 2 ? 1 : 0;
        long era = Math.floorDiv(y, 400);
        long yoe = y - era * 400;
        long doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
        long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        return era * 146_097 + doe - 719_468;
    }

    private static Predicate.Node datePart(Expr.Call c, List<Predicate.Node> a, Binding b) {
        String part = part(c, a, b, PARTS);
        long unit = unit(a.get(1).type());
        boolean epoch = part.equals("epoch");
        List<Predicate.Node> in = List.of(a.get(1));
        if (epoch) {
            return Strict.doubles(in, (v, i) -> v[0].get(i) * unit / 1e9);
        }
        return Strict.longs(ValueType.INT, in, (v, i) -> {
            long x = Strict.integer(v, 0, i);
            // exact nanoseconds within the day, and the day number
            long dayNum = Math.floorDiv(x, NANOS_PER_DAY / unit);
            long nanosOfDay = Math.floorMod(x, NANOS_PER_DAY / unit) * unit;
            long[] ymd = civil(dayNum);
            return switch (part) {
                case "year" -> ymd[0];
                case "quarter" -> (ymd[1] - 1) / 3 + 1;
                case "month" -> ymd[1];
                case "day" -> ymd[2];
                case "dow" -> Math.floorMod(dayNum + 4, 7); // 1970-01-01 was a Thursday; Sunday = 0
                case "doy" -> dayNum - days(ymd[0], 1, 1) + 1;
                case "week" -> LocalDate.ofEpochDay(dayNum).get(java.time.temporal.IsoFields.WEEK_OF_WEEK_BASED_YEAR);
                case "hour" -> nanosOfDay / 3_600_000_000_000L;
                case "minute" -> nanosOfDay / 60_000_000_000L % 60;
                case "second" -> nanosOfDay / 1_000_000_000L % 60;
                case "millisecond" -> nanosOfDay % 60_000_000_000L / 1_000_000L;
                default -> nanosOfDay % 60_000_000_000L / 1_000L; // microsecond
            };
        });
    }

    /** date_trunc: a timestamp in the operand's unit (dates become timestamps at midnight, as in DataFusion). */
    private static Predicate.Node dateTrunc(Expr.Call c, List<Predicate.Node> a, Binding b) {
        String part = part(c, a, b, TRUNCS);
        ValueType from = a.get(1).type();
        long unit = from.kind() == ValueType.Kind.DATE ? 1 : from.unitNanos();
        long fromUnit = unit(from);
        ValueType to = ValueType.timestamp(unit);
        return Strict.longs(to, List.of(a.get(1)), (v, i) -> {
            long x = Strict.integer(v, 0, i) * (fromUnit / unit); // in the result unit
            long perDay = NANOS_PER_DAY / unit;
            long dayNum = Math.floorDiv(x, perDay);
            long inDay = Math.floorMod(x, perDay);
            long[] ymd = civil(dayNum);
            long day = switch (part) {
                case "year" -> days(ymd[0], 1, 1);
                case "quarter" -> days(ymd[0], (ymd[1] - 1) / 3 * 3 + 1, 1);
                case "month" -> days(ymd[0], ymd[1], 1);
                case "week" -> dayNum - Math.floorMod(dayNum + 3, 7); // back to Monday
                default -> dayNum;
            };
            long keepNanos = switch (part) {
                case "hour" -> 3_600_000_000_000L;
                case "minute" -> 60_000_000_000L;
                case "second" -> 1_000_000_000L;
                case "millisecond" -> 1_000_000L;
                case "microsecond" -> 1_000L;
                default -> 0;
            };
            long within = keepNanos == 0 ? 0 : keepNanos <= unit ? inDay : inDay - Math.floorMod(inDay, keepNanos / unit);
            return day * perDay + within;
        });
    }
}
