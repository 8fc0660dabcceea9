package io.javelin.tx.branch;

import io.javelin.tx.InvalidNameException;

/**
 * Lance's branch name rules ({@code refs.rs}): non-empty, no leading/trailing {@code /}, no {@code //},
 * {@code ..} or {@code \}; every {@code /}-separated segment non-empty of Unicode letters/digits or
 * {@code ._-}; not ending in {@code .lock}; not {@code main}.
 */
public final class BranchNames {

    private BranchNames() {
    }

    public static String check(String name) {
        if (name == null || name.isEmpty()) {
            throw new InvalidNameException("Branch name must not be empty");
        }
        if (name.equals("main")) {
            throw new InvalidNameException("'main' is reserved and cannot be a branch name");
        }
        if (name.startsWith("/") || name.endsWith("/") || name.contains("//") || name.contains("..") || name.contains("\\")) {
            throw new InvalidNameException("Branch name '" + name + "' must not start or end with '/' or contain '//', '..' or '\\'");
        }
        if (name.endsWith(".lock")) {
            throw new InvalidNameException("Branch name '" + name + "' must not end with '.lock'");
        }
        for (String seg : name.split("/")) {
            for (int i = 0; i < seg.length(); ) {
                int cp = seg.codePointAt(i);
                boolean ok = Character.isAlphabetic(cp) || Character.isDigit(cp)
                        || Character.getType(cp) == Character.LETTER_NUMBER || Character.getType(cp) == Character.OTHER_NUMBER
                        || cp == '.' || cp == '_' || cp == '-';
                if (!ok) {
                    throw new InvalidNameException("Branch name '" + name + "' contains the invalid character '"
                            + new String(Character.toChars(cp)) + "' (allowed: letters, digits, '.', '_', '-', '/')");
                }
                i += Character.charCount(cp);
            }
        }
        return name;
    }

    /** {@code _refs/branches/{name with / as %2F}.json} (object_store path-segment encoding). */
    public static String refPath(String name) {
        return BranchStore.DIR + check(name).replace("/", "%2F") + ".json";
    }

    /** The branch dataset's root relative to the main dataset's: {@code tree/{name}/} (slashes stay directories). */
    public static String root(String name) {
        return "tree/" + check(name) + "/";
    }
}
