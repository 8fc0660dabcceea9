package io.javelin.interop.fts;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * A generated text corpus for full-text tests: Zipf-distributed words from a vocabulary of
 * English words (with inflections the stemmer folds), stop words, pseudo-words, numbers, accented
 * and non-Latin words, punctuation and the odd over-long token; about 4 % null documents and a
 * few empty ones. Deterministic for a seed.
 */
final class FtsCorpus {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("year", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("text", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    static final String[] BASE = ("run running runs runner ran connect connected connection connections database databases "
            + "index indexes indexing indexed search searching searched query queries vector vectors fast faster fastest "
            + "quick quickly brown fox foxes jump jumps jumped jumping lazy dog dogs happy happiness happily generous "
            + "generously national nationality nation relational relate related relating analysis analyses analyze "
            + "storage store stored storing engine engines column columns columnar format formats file files lake "
            + "house houses data table tables version versions compact compaction delete deleted deletion update "
            + "updated updates merge merged merging cloud object objects memory memories arrow arrows lance lancer "
            + "the a an and or of to in is are was were be been it this that these those with for on at by from as "
            + "café naïve résumé façade Ærø Ångström Straße Ελλάδα Σίσυφος москва данные 数据 東京 İstanbul ǅemal "
            + "e-mail c++ 3.14 2024 x86_64 v2 ½ ³ ⅷ").split(" ");

    final String[] vocab;
    final double[] cdf;

    FtsCorpus(int pseudoWords, long seed) {
        List<String> v = new ArrayList<>(List.of(BASE));
        Random r = new Random(seed);
        for (int i = 0; i < pseudoWords; i++) {
            StringBuilder b = new StringBuilder();
            int len = 3 + r.nextInt(7);
            for (int j = 0; j < len; j++) {
                b.append((char) ('a' + r.nextInt(26)));
            }
            v.add(i % 50 == 0 ? b.toString().toUpperCase() : b.toString());
        }
        java.util.Collections.shuffle(v, r);
        vocab = v.toArray(String[]::new);
        cdf = new double[vocab.length];
        double sum = 0;
        for (int i = 0; i < vocab.length; i++) {
            sum += 1.0 / Math.pow(i + 1, 1.05);
            cdf[i] = sum;
        }
        for (int i = 0; i < vocab.length; i++) {
            cdf[i] /= sum;
        }
    }

    String word(Random r) {
        int i = java.util.Arrays.binarySearch(cdf, r.nextDouble());
        return vocab[Math.min(vocab.length - 1, i < 0 ? -i - 1 : i)];
    }

    String doc(long id) {
        Random r = new Random(id * 7919 + 17);
        if (r.nextInt(25) == 0) {
            return null;
        }
        if (r.nextInt(200) == 0) {
            return r.nextBoolean() ? "" : "  ... !!! ";
        }
        int n = 1 + r.nextInt(r.nextInt(10) == 0 ? 120 : 25);
        StringBuilder b = new StringBuilder();
        String[] seps = {" ", " ", " ", " ", ", ", ". ", " - ", "\t", "\n", "/", "(", ") ", ":", "'"};
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                b.append(seps[r.nextInt(seps.length)]);
            }
            b.append(r.nextInt(500) == 0 ? "x".repeat(45) : word(r));
        }
        return b.toString();
    }

    /** A query of 1-4 words from the same distribution (sometimes an unknown word). */
    String query(Random r) {
        int n = 1 + r.nextInt(4);
        List<String> w = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            w.add(r.nextInt(20) == 0 ? "zzqqnotaword" : word(r));
        }
        return String.join(" ", w);
    }

    Flux<VectorSchemaRoot> rows(BufferAllocator alloc, long from, int count, int batch) {
        return Flux.range(0, (count + batch - 1) / batch).map(bi -> {
            int n = Math.min(batch, count - bi * batch);
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            root.allocateNew();
            BigIntVector id = (BigIntVector) root.getVector("id");
            IntVector year = (IntVector) root.getVector("year");
            VarCharVector text = (VarCharVector) root.getVector("text");
            for (int i = 0; i < n; i++) {
                long row = from + (long) bi * batch + i;
                id.setSafe(i, row);
                year.setSafe(i, (int) (1990 + row % 35));
                String d = doc(row);
                if (d == null) {
                    text.setNull(i);
                } else {
                    text.setSafe(i, d.getBytes(StandardCharsets.UTF_8));
                }
            }
            root.setRowCount(n);
            return root;
        });
    }
}
