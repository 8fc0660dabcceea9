package io.javelin.index.fts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javelin.index.CorruptIndexException;
import java.util.List;
import java.util.Locale;

/**
 * Lance's {@code InvertedIndexParams} (the {@code params} JSON of {@code metadata.lance}), with
 * Lance's option names. Defaults are the ones lance-core 7.0.0 uses when a field is missing
 * ({@code simple}, English, no positions, max token length 40, lower case, stem, stop words and
 * ASCII folding on, n-grams 3..3).
 *
 * @param maxTokenLength tokens of this many UTF-8 bytes or more are dropped; null = no limit
 */
public record FtsParams(String baseTokenizer, String language, boolean withPosition, Integer maxTokenLength,
                        boolean lowerCase, boolean stem, boolean removeStopWords, List<String> customStopWords,
                        boolean asciiFolding, int minNgramLength, int maxNgramLength, boolean prefixOnly) {

    private static final ObjectMapper JSON = new ObjectMapper();

    public FtsParams {
        baseTokenizer = baseTokenizer.toLowerCase(Locale.ROOT);
        customStopWords = customStopWords == null ? null : List.copyOf(customStopWords);
        if (!List.of("simple", "whitespace", "raw", "ngram").contains(baseTokenizer)) {
            throw new IllegalArgumentException("unsupported base tokenizer '" + baseTokenizer
                    + "' (supported: simple, whitespace, raw, ngram)");
        }
        if (maxTokenLength != null && maxTokenLength <= 0) {
            throw new IllegalArgumentException("max_token_length must be positive: " + maxTokenLength);
        }
        if (minNgramLength <= 0 || maxNgramLength < minNgramLength) {
            throw new IllegalArgumentException("ngram lengths " + minNgramLength + ".." + maxNgramLength);
        }
    }

    public static FtsParams defaults() {
        return new FtsParams("simple", "English", false, 40, true, true, true, null, true, 3, 3, false);
    }

    public FtsParams withBaseTokenizer(String t) {
        return new FtsParams(t, language, withPosition, maxTokenLength, lowerCase, stem, removeStopWords, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withLanguage(String l) {
        return new FtsParams(baseTokenizer, l, withPosition, maxTokenLength, lowerCase, stem, removeStopWords, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withPosition(boolean p) {
        return new FtsParams(baseTokenizer, language, p, maxTokenLength, lowerCase, stem, removeStopWords, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withMaxTokenLength(Integer n) {
        return new FtsParams(baseTokenizer, language, withPosition, n, lowerCase, stem, removeStopWords, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withLowerCase(boolean b) {
        return new FtsParams(baseTokenizer, language, withPosition, maxTokenLength, b, stem, removeStopWords, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withStem(boolean b) {
        return new FtsParams(baseTokenizer, language, withPosition, maxTokenLength, lowerCase, b, removeStopWords, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withRemoveStopWords(boolean b) {
        return new FtsParams(baseTokenizer, language, withPosition, maxTokenLength, lowerCase, stem, b, customStopWords, asciiFolding, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withAsciiFolding(boolean b) {
        return new FtsParams(baseTokenizer, language, withPosition, maxTokenLength, lowerCase, stem, removeStopWords, customStopWords, b, minNgramLength, maxNgramLength, prefixOnly);
    }

    public FtsParams withNgram(int min, int max, boolean prefix) {
        return new FtsParams(baseTokenizer, language, withPosition, maxTokenLength, lowerCase, stem, removeStopWords, customStopWords, asciiFolding, min, max, prefix);
    }

    /** Parses the {@code params} JSON; a missing field takes its default, a malformed one is corruption. */
    public static FtsParams parse(String json, String resource) {
        try {
            JsonNode n = JSON.readTree(json);
            CorruptIndexException.check(n != null && n.isObject(), resource, "params is not a JSON object");
            FtsParams d = defaults();
            Integer maxLen = d.maxTokenLength();
            if (n.has("max_token_length")) {
                maxLen = n.get("max_token_length").isNull() ? null : n.get("max_token_length").asInt();
            }
            List<String> custom = null;
            if (n.hasNonNull("custom_stop_words")) {
                custom = new java.util.ArrayList<>();
                for (JsonNode w : n.get("custom_stop_words")) {
                    custom.add(w.asText());
                }
            }
            return new FtsParams(text(n, "base_tokenizer", d.baseTokenizer()), text(n, "language", d.language()),
                    bool(n, "with_position", d.withPosition()), maxLen, bool(n, "lower_case", d.lowerCase()),
                    bool(n, "stem", d.stem()), bool(n, "remove_stop_words", d.removeStopWords()), custom,
                    bool(n, "ascii_folding", d.asciiFolding()), n.has("min_ngram_length") ? n.get("min_ngram_length").asInt() : d.minNgramLength(),
                    n.has("max_ngram_length") ? n.get("max_ngram_length").asInt() : d.maxNgramLength(), bool(n, "prefix_only", d.prefixOnly()));
        } catch (com.fasterxml.jackson.core.JsonProcessingException | IllegalArgumentException e) {
            throw new CorruptIndexException(resource, "params do not parse: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode n, String k, String d) {
        return n.hasNonNull(k) ? n.get(k).asText() : d;
    }

    private static boolean bool(JsonNode n, String k, boolean d) {
        return n.hasNonNull(k) ? n.get(k).asBoolean() : d;
    }

    /** The JSON lance-core 7.0.0 writes (same keys and order). */
    public String toJson() {
        ObjectNode o = JSON.createObjectNode();
        o.put("lance_tokenizer", "text");
        o.put("base_tokenizer", baseTokenizer);
        o.put("language", language);
        o.put("with_position", withPosition);
        if (maxTokenLength == null) {
            o.putNull("max_token_length");
        } else {
            o.put("max_token_length", maxTokenLength);
        }
        o.put("lower_case", lowerCase);
        o.put("stem", stem);
        o.put("remove_stop_words", removeStopWords);
        if (customStopWords == null) {
            o.putNull("custom_stop_words");
        } else {
            customStopWords.forEach(o.putArray("custom_stop_words")::add);
        }
        o.put("ascii_folding", asciiFolding);
        o.put("min_ngram_length", minNgramLength);
        o.put("max_ngram_length", maxNgramLength);
        o.put("prefix_only", prefixOnly);
        return o.toString();
    }
}
