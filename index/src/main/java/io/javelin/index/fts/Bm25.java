package io.javelin.index.fts;

/**
 * Lance's BM25 (k1 = 1.2, b = 0.75): {@code idf(n) = ln((N - n + 0.5) / (n + 0.5) + 1)} and a
 * term's weight {@code idf · (k1 + 1) · f / (f + k1 · (1 - b + b · dl / avgdl))}, computed in f32
 * as Lance does, with {@code N}, {@code n} and {@code avgdl} taken over every partition searched.
 */
public record Bm25(long numDocs, float avgDocLength) {

    public static final float K1 = 1.2f;
    public static final float B = 0.75f;

    public static Bm25 of(long numDocs, long totalTokens) {
        return new Bm25(numDocs, numDocs == 0 ? 0f : (float) ((double) totalTokens / numDocs));
    }

    public float idf(long docFreq) {
        float n = numDocs, nq = docFreq;
        return (float) Math.log((n - nq + 0.5f) / (nq + 0.5f) + 1.0f);
    }

    public float weight(float idf, int freq, int docLength) {
        float f = freq;
        float norm = K1 * (1 - B + B * docLength / avgDocLength);
        return idf * (K1 + 1) * f / (f + norm);
    }
}
