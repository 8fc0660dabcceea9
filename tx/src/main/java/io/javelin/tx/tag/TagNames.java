package io.javelin.tx.tag;

import io.javelin.tx.InvalidNameException;

/**
 * Lance's tag-name rule (refs.rs {@code check_valid_tag}): non-empty; only Unicode letters/numbers and
 * {@code . _ -}; no leading or trailing {@code .}, no {@code ..}, not ending in {@code .lock}. This also
 * keeps a tag name from ever being a path ({@code /}, {@code \}, NUL are not allowed).
 */
public final class TagNames {

    private TagNames() {
    }

    public static String check(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidNameException("Tag name must not be empty");
        }
        for (int i = 0; i < name.length(); ) {
            int cp = name.codePointAt(i);
            if (!(isAlphanumeric(cp) || cp == '.' || cp == '_' || cp == '-')) {
                throw new InvalidNameException("Tag name " + quote(name) + " contains the invalid character "
                        + quote(new String(Character.toChars(cp))) + " (allowed: letters, digits, '.', '_', '-')");
            }
            i += Character.charCount(cp);
        }
        if (name.startsWith(".") || name.endsWith(".")) {
            throw new InvalidNameException("Tag name " + quote(name) + " must not start or end with '.'");
        }
        if (name.contains("..")) {
            throw new InvalidNameException("Tag name " + quote(name) + " must not contain '..'");
        }
        if (name.endsWith(".lock")) {
            throw new InvalidNameException("Tag name " + quote(name) + " must not end with '.lock'");
        }
        return name;
    }

    /** Rust {@code char::is_alphanumeric}: Alphabetic or a Unicode number (Nd, Nl, No). */
    static boolean isAlphanumeric(int cp) {
        if (Character.isAlphabetic(cp)) {
            return true;
        }
        int type = Character.getType(cp);
        return type == Character.DECIMAL_DIGIT_NUMBER || type == Character.LETTER_NUMBER || type == Character.OTHER_NUMBER;
    }

    private static String quote(String s) {
        StringBuilder sb = new StringBuilder("'");
        s.codePoints().forEach(cp -> {
            if (cp < 0x20 || cp == 0x7f) {
                sb.append(String.format("\\u%04x", cp));
            } else {
                sb.appendCodePoint(cp);
            }
        });
        return sb.append('\'').toString();
    }
}
