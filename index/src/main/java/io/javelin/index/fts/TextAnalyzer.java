package io.javelin.index.fts;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.lucene.analysis.CharArraySet;
import org.apache.lucene.analysis.WordlistLoader;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.tartarus.snowball.SnowballStemmer;

/**
 * Lance's text analysis (tantivy's pipeline as lance-core 7.0.0 configures it): a base tokenizer,
 * then in this order: drop tokens of {@code max_token_length} UTF-8 bytes or more, lower-case,
 * Snowball stem, drop stop words, ASCII-fold. A token's position is its index in the base
 * tokenizer's stream, so dropped tokens still take a position (phrase queries count them).
 * Instances are immutable apart from the per-call stemmer and safe to share across threads.
 */
public final class TextAnalyzer {

    /** A token and its position in the base token stream. */
    public record Token(String text, int position) {
    }

    private final FtsParams params;
    private final Set<String> stopWords;

    public TextAnalyzer(FtsParams params) {
        this.params = params;
        this.stopWords = params.removeStopWords()
                ? (params.customStopWords() != null ? Set.copyOf(params.customStopWords()) : stopWords(params.language()))
                : Set.of();
        if (params.stem()) {
            stemmer(params.language()); // unknown languages fail here, not per document
        }
    }

    public FtsParams params() {
        return params;
    }

    /** The analysed tokens of {@code text}, in order. */
    public List<Token> tokens(String text) {
        List<Token> base = baseTokens(text);
        List<Token> out = new ArrayList<>(base.size());
        SnowballStemmer stemmer = params.stem() ? stemmer(params.language()) : null;
        for (Token t : base) {
            String s = t.text();
            if (params.maxTokenLength() != null && utf8Length(s) >= params.maxTokenLength()) {
                continue;
            }
            if (params.lowerCase()) {
                s = lowerCase(s);
            }
            if (stemmer != null) {
                stemmer.setCurrent(s);
                stemmer.stem();
                s = stemmer.getCurrent();
            }
            if (stopWords.contains(s)) {
                continue;
            }
            if (params.asciiFolding()) {
                s = fold(s);
            }
            out.add(new Token(s, t.position()));
        }
        return out;
    }

    /** Just the token texts. */
    public List<String> texts(String text) {
        List<Token> ts = tokens(text);
        List<String> out = new ArrayList<>(ts.size());
        for (Token t : ts) {
            out.add(t.text());
        }
        return out;
    }

    List<Token> baseTokens(String text) {
        return switch (params.baseTokenizer()) {
            case "simple" -> split(text, true);
            case "whitespace" -> split(text, false);
            case "raw" -> List.of(new Token(text, 0));
            case "ngram" -> ngrams(text);
            default -> throw new IllegalStateException(params.baseTokenizer());
        };
    }

    /** Rust's {@code char::is_alphanumeric}: Unicode Alphabetic or a numeric category (Nd, Nl, No). */
    static boolean isAlphanumeric(int cp) {
        if (cp < 0x80) {
            return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
        }
        if (Character.isAlphabetic(cp)) {
            return true;
        }
        int t = Character.getType(cp);
        return t == Character.DECIMAL_DIGIT_NUMBER || t == Character.LETTER_NUMBER || t == Character.OTHER_NUMBER;
    }

    /** Rust's {@code char::is_ascii_whitespace}. */
    static boolean isAsciiWhitespace(int cp) {
        return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\f' || cp == '\r';
    }

    private static List<Token> split(String text, boolean alphanumeric) {
        List<Token> out = new ArrayList<>();
        int start = -1;
        int i = 0;
        while (i < text.length()) {
            int cp = text.codePointAt(i);
            boolean in = alphanumeric ? isAlphanumeric(cp) : !isAsciiWhitespace(cp);
            if (in && start < 0) {
                start = i;
            } else if (!in && start >= 0) {
                out.add(new Token(text.substring(start, i), out.size()));
                start = -1;
            }
            i += Character.charCount(cp);
        }
        if (start >= 0) {
            out.add(new Token(text.substring(start), out.size()));
        }
        return out;
    }

    /** tantivy's NgramTokenizer: every char n-gram of min..max chars, by start then length (prefix-only: start 0). */
    private List<Token> ngrams(String text) {
        int[] cps = text.codePoints().toArray();
        List<Token> out = new ArrayList<>();
        int lastStart = params.prefixOnly() ? Math.min(0, cps.length - 1) : cps.length - 1;
        for (int s = 0; s <= lastStart; s++) {
            for (int n = params.minNgramLength(); n <= params.maxNgramLength() && s + n <= cps.length; n++) {
                out.add(new Token(new String(cps, s, n), 0));
            }
        }
        return out;
    }

    static int utf8Length(String s) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                n++;
            } else if (c < 0x800) {
                n += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                n += 4;
                i++;
            } else {
                n += 3;
            }
        }
        return n;
    }

    /** Rust's per-char {@code to_lowercase} (no context rules; İ becomes "i̇" as in Rust). */
    static String lowerCase(String s) {
        boolean ascii = true;
        for (int i = 0; i < s.length() && ascii; i++) {
            ascii = s.charAt(i) < 0x80;
        }
        if (ascii) {
            return s.toLowerCase(Locale.ROOT);
        }
        StringBuilder b = new StringBuilder(s.length());
        s.codePoints().forEach(cp -> {
            if (cp == 0x130) {
                b.append("i\u0307");
            } else {
                b.appendCodePoint(Character.toLowerCase(cp));
            }
        });
        return b.toString();
    }

    static String fold(String s) {
        boolean ascii = true;
        for (int i = 0; i < s.length() && ascii; i++) {
            ascii = s.charAt(i) < 0x80;
        }
        if (ascii) {
            return s;
        }
        StringBuilder pre = null;
        for (int i = 0; i < s.length(); i++) {
            String extra = extraFolding(s.charAt(i));
            if (extra != null && pre == null) {
                pre = new StringBuilder(s.substring(0, i));
            }
            if (pre != null) {
                pre.append(extra != null ? extra : String.valueOf(s.charAt(i)));
            }
        }
        if (pre != null) {
            s = pre.toString();
        }
        char[] in = s.toCharArray();
        char[] out = new char[4 * in.length];
        int n = ASCIIFoldingFilter.foldToASCII(in, 0, out, 0, in.length);
        return new String(out, 0, n);
    }

    private static final String[] ROMAN = {"i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "l", "c", "d", "m"};

    /**
     * Foldings lance-core 7.0.0 (tantivy's port of Lucene's table) does that Lucene 10's table does not,
     * found by the dictionary differential test: Roman numeral characters become their letters, ½ becomes "12".
     */
    private static String extraFolding(char c) {
        if (c >= 0x2160 && c <= 0x216F) {
            return ROMAN[c - 0x2160].toUpperCase(Locale.ROOT);
        }
        if (c >= 0x2170 && c <= 0x217F) {
            return ROMAN[c - 0x2170];
        }
        return c == '\u00BD' ? "12" : null;
    }

    static SnowballStemmer stemmer(String language) {
        return switch (language.toLowerCase(Locale.ROOT)) {
            case "english" -> new org.tartarus.snowball.ext.EnglishStemmer();
            case "arabic" -> new org.tartarus.snowball.ext.ArabicStemmer();
            case "danish" -> new org.tartarus.snowball.ext.DanishStemmer();
            case "dutch" -> new org.tartarus.snowball.ext.DutchStemmer();
            case "finnish" -> new org.tartarus.snowball.ext.FinnishStemmer();
            case "french" -> new org.tartarus.snowball.ext.FrenchStemmer();
            case "german" -> new org.tartarus.snowball.ext.GermanStemmer();
            case "greek" -> new org.tartarus.snowball.ext.GreekStemmer();
            case "hungarian" -> new org.tartarus.snowball.ext.HungarianStemmer();
            case "italian" -> new org.tartarus.snowball.ext.ItalianStemmer();
            case "norwegian" -> new org.tartarus.snowball.ext.NorwegianStemmer();
            case "portuguese" -> new org.tartarus.snowball.ext.PortugueseStemmer();
            case "romanian" -> new org.tartarus.snowball.ext.RomanianStemmer();
            case "russian" -> new org.tartarus.snowball.ext.RussianStemmer();
            case "spanish" -> new org.tartarus.snowball.ext.SpanishStemmer();
            case "swedish" -> new org.tartarus.snowball.ext.SwedishStemmer();
            case "tamil" -> new org.tartarus.snowball.ext.TamilStemmer();
            case "turkish" -> new org.tartarus.snowball.ext.TurkishStemmer();
            default -> throw new IllegalArgumentException("no stemmer for language '" + language + "'");
        };
    }

    private static final java.util.Map<String, Set<String>> STOP_WORDS = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * The stop words of {@code language}: for English the classic 33-word list (the one lance-core 7.0.0
     * removes: "been", "from", "were" stay tokens), otherwise the Snowball list; loaded once.
     */
    static Set<String> stopWords(String language) {
        return STOP_WORDS.computeIfAbsent(language.toLowerCase(Locale.ROOT), lang -> {
            if (lang.equals("english")) {
                Set<String> out = new HashSet<>();
                for (Object o : org.apache.lucene.analysis.en.EnglishAnalyzer.ENGLISH_STOP_WORDS_SET) {
                    out.add(o instanceof char[] c ? new String(c) : o.toString());
                }
                return Set.copyOf(out);
            }
            String res = "/org/apache/lucene/analysis/snowball/" + lang + "_stop.txt";
            try (InputStream in = TextAnalyzer.class.getResourceAsStream(res)) {
                if (in == null) {
                    throw new IllegalArgumentException("no stop words for language '" + language + "'");
                }
                CharArraySet set = WordlistLoader.getSnowballWordSet(new InputStreamReader(in, StandardCharsets.UTF_8));
                Set<String> out = new HashSet<>();
                for (Object o : set) {
                    out.add(o instanceof char[] c ? new String(c) : o.toString());
                }
                return Set.copyOf(out);
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + res, e);
            }
        });
    }
}
