package io.javelin.engine.jsonb;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * JSONB number payloads (one tag byte, then a big-endian value: int in 1/2/4/8 bytes, uint likewise, float64,
 * or decimal value + scale) and their text as the {@code jsonb} crate prints them: integers in decimal,
 * floats as the shortest round-tripping digits laid out like Rust's {@code zmij}/{@code ryu} (fixed notation
 * for decimal exponents -5..15, otherwise {@code 1.5e+20} / {@code 5e-324}; always a fraction, {@code 2.0}).
 */
public final class JsonbNumbers {

    static final int ZERO = 0x00;
    static final int NAN = 0x10;
    static final int INF = 0x20;
    static final int NEG_INF = 0x30;
    static final int INT = 0x40;
    static final int UINT = 0x50;
    static final int FLOAT = 0x60;
    static final int DECIMAL = 0x70;

    private JsonbNumbers() {
    }

    static int tag(byte[] b, long ref) {
        if (Jsonb.length(ref) < 1) {
            throw Jsonb.corrupt("empty number");
        }
        return b[Jsonb.offset(ref)] & 0xF0;
    }

    private static long signed(byte[] b, int at, int n) {
        long v = b[at];
        for (int k = 1; k < n; k++) {
            v = v << 8 | b[at + k] & 0xFF;
        }
        return v;
    }

    private static long unsigned(byte[] b, int at, int n) {
        long v = 0;
        for (int k = 0; k < n; k++) {
            v = v << 8 | b[at + k] & 0xFF;
        }
        return v;
    }

    private static int width(byte[] b, long ref) {
        int n = Jsonb.length(ref) - 1;
        if (n != 1 && n != 2 && n != 4 && n != 8) {
            throw Jsonb.corrupt("integer of " + n + " bytes");
        }
        return n;
    }

    /** An integer payload's value (INT signed, UINT as unsigned bits). */
    static long integer(byte[] b, long ref) {
        int at = Jsonb.offset(ref) + 1;
        return tag(b, ref) == INT ? signed(b, at, width(b, ref)) : unsigned(b, at, width(b, ref));
    }

    static double float64(byte[] b, long ref) {
        if (Jsonb.length(ref) != 9) {
            throw Jsonb.corrupt("float of " + (Jsonb.length(ref) - 1) + " bytes");
        }
        return Double.longBitsToDouble(signed(b, Jsonb.offset(ref) + 1, 8));
    }

    /** A decimal payload (value then scale; 64- or 128-bit values, 256-bit ones rarely written). */
    static BigDecimal decimal(byte[] b, long ref) {
        int n = Jsonb.length(ref) - 1;
        int valueBytes = switch (n) {
            case 9 -> 8;
            case 17, 18 -> 16;
            case 33, 34 -> 32;
            default -> throw Jsonb.corrupt("decimal of " + n + " bytes");
        };
        int at = Jsonb.offset(ref) + 1;
        byte[] v = java.util.Arrays.copyOfRange(b, at, at + valueBytes);
        int scale = b[at + n - 1] & 0xFF;
        return new BigDecimal(new BigInteger(v), scale);
    }

    /** The number as a double (decimals and big integers rounded). */
    static double asDouble(byte[] b, long ref) {
        return switch (tag(b, ref)) {
            case ZERO -> 0;
            case NAN -> Double.NaN;
            case INF -> Double.POSITIVE_INFINITY;
            case NEG_INF -> Double.NEGATIVE_INFINITY;
            case INT -> integer(b, ref);
            case UINT -> unsignedToDouble(integer(b, ref));
            case FLOAT -> float64(b, ref);
            case DECIMAL -> decimal(b, ref).doubleValue();
            default -> throw Jsonb.corrupt("number tag 0x" + Integer.toHexString(tag(b, ref)));
        };
    }

    static double unsignedToDouble(long v) {
        return v >= 0 ? v : (double) (v >>> 1 | v & 1) * 2.0;
    }

    /** Rust's {@code f64::round}: half away from zero. */
    static double roundHalfAway(double v) {
        double a = Math.abs(v);
        double f = Math.floor(a);
        return Math.copySign(a - f >= 0.5 ? f + 1 : f, v);
    }

    /** Rounded to the nearest integer when it fits an i64 (jsonb's {@code to_i64}), else null. */
    static Long toI64(byte[] b, long ref) {
        return switch (tag(b, ref)) {
            case ZERO -> 0L;
            case INT -> integer(b, ref);
            case UINT -> {
                long v = integer(b, ref);
                yield v >= 0 ? v : null;
            }
            case DECIMAL -> roundToLong(decimal(b, ref).setScale(0, java.math.RoundingMode.HALF_UP));
            default -> roundToLong(asDouble(b, ref));
        };
    }

    static Long roundToLong(double v) {
        if (!Double.isFinite(v)) {
            return null;
        }
        double r = roundHalfAway(v);
        return r >= -0x1p63 && r < 0x1p63 ? (long) r : null;
    }

    private static Long roundToLong(BigDecimal v) {
        try {
            return v.longValueExact();
        } catch (ArithmeticException e) {
            return null;
        }
    }

    /** The number as {@code Display} prints it ({@code json_get_string}): NaN, inf, decimals exactly. */
    static String display(byte[] b, long ref) {
        return switch (tag(b, ref)) {
            case ZERO -> "0";
            case INT -> Long.toString(integer(b, ref));
            case UINT -> Long.toUnsignedString(integer(b, ref));
            case DECIMAL -> decimal(b, ref).toPlainString();
            default -> formatDouble(asDouble(b, ref));
        };
    }

    /** The number as JSON text (serde_json): non-finite floats are {@code null}, decimals go through f64. */
    static String json(byte[] b, long ref) {
        int tag = tag(b, ref);
        if (tag == ZERO || tag == INT || tag == UINT) {
            return display(b, ref);
        }
        double d = asDouble(b, ref);
        return Double.isFinite(d) ? formatDouble(d) : "null";
    }

    /** Shortest round-trip digits in zmij's layout. */
    public static String formatDouble(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "inf" : "-inf";
        }
        if (v == 0) {
            return (1 / v < 0) ? "-0.0" : "0.0";
        }
        BigDecimal d = new BigDecimal(Double.toString(Math.abs(v))).stripTrailingZeros();
        String digits = d.unscaledValue().toString();
        int exp = digits.length() - 1 - d.scale();
        if (digits.length() == 2) {
            // Java prints at least two digits where one would round-trip (4.9E-324 for 5e-324)
            String shorter = oneDigit(Math.abs(v), digits, exp);
            if (shorter != null) {
                digits = shorter;
                if (digits.length() > 1) {
                    exp++;
                    digits = digits.substring(0, 1);
                }
            }
        }
        StringBuilder sb = new StringBuilder(24);
        if (v < 0) {
            sb.append('-');
        }
        if (exp >= -5 && exp <= 15) {
            if (exp >= 0) {
                if (digits.length() <= exp + 1) {
                    sb.append(digits).append("0".repeat(exp + 1 - digits.length())).append(".0");
                } else {
                    sb.append(digits, 0, exp + 1).append('.').append(digits, exp + 1, digits.length());
                }
            } else {
                sb.append("0.").append("0".repeat(-exp - 1)).append(digits);
            }
        } else {
            sb.append(digits.charAt(0));
            if (digits.length() > 1) {
                sb.append('.').append(digits, 1, digits.length());
            }
            sb.append('e').append(exp < 0 ? '-' : '+').append(Math.abs(exp));
        }
        return sb.toString();
    }

    /** A one-digit decimal (as digits, "10" meaning one at the next exponent) that round-trips, or null. */
    private static String oneDigit(double a, String two, int exp) {
        int first = two.charAt(0) - '0';
        BigDecimal exact = new BigDecimal(a);
        String best = null;
        BigDecimal bestDistance = null;
        for (int c : new int[] {first, first + 1}) {
            String text = c + "E" + exp;
            if (c >= 1 && Double.parseDouble(text) == a) {
                BigDecimal distance = new BigDecimal(text).subtract(exact).abs();
                if (bestDistance == null || distance.compareTo(bestDistance) < 0) {
                    best = String.valueOf(c);
                    bestDistance = distance;
                }
            }
        }
        return best;
    }
}
