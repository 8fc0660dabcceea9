package io.javelin.interop.fts;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.FtsQuery;
import io.javelin.index.fts.FtsParams;
import io.javelin.index.fts.ScoredRow;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.index.IndexType;
import org.lance.index.scalar.InvertedIndexParams;
import org.lance.ipc.FullTextQuery;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * lance-core 7.0.0 builds an INVERTED index (default tokenizer settings: simple, lower case,
 * English stemming and stop words, ASCII folding, max token length 40) on a generated corpus of
 * two fragments; Javelin appends an unindexed fragment and deletes rows; then both answer the
 * same match queries (OR and AND, several limits, with and without a prefilter) and must return
 * the same rows with the same {@code _score} (1e-4 relative), ranked the same up to ties.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FtsReadInteropTest {

    static final int ROWS = 30_000;
    static final int APPENDED = 3_000;

    @TempDir
    static Path dir;
    final BufferAllocator alloc = new RootAllocator();
    final FtsCorpus corpus = new FtsCorpus(3000, 42);
    String uri;
    long indexedVersion;

    @BeforeAll
    void build() throws Exception {
        uri = dir.resolve("fts.lance").toString();
        Dataset.write(uri, corpus.rows(alloc, 0, ROWS, 5000), FtsCorpus.SCHEMA,
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(ROWS / 2)).block().close();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.createIndex(List.of("text"), IndexType.INVERTED, Optional.of("text_idx"), lanceParams(FtsParams.defaults()), true);
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            ds.delete("id % 97 = 5 OR id = 20000").block().close();
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            indexedVersion = ds.version();
            ds.append(corpus.rows(alloc, ROWS, APPENDED, 1000), FtsCorpus.SCHEMA).block().close();
        }
    }

    @AfterAll
    void close() {
        alloc.close();
    }

    static org.lance.index.IndexParams lanceParams(FtsParams p) {
        InvertedIndexParams.Builder b = InvertedIndexParams.builder().baseTokenizer(p.baseTokenizer()).language(p.language())
                .withPosition(p.withPosition()).maxTokenLength(p.maxTokenLength()).lowerCase(p.lowerCase()).stem(p.stem())
                .removeStopWords(p.removeStopWords()).asciiFolding(p.asciiFolding()).minNgramLength(p.minNgramLength())
                .maxNgramLength(p.maxNgramLength()).prefixOnly(p.prefixOnly());
        return org.lance.index.IndexParams.builder().setScalarIndexParams(b.build()).build();
    }

    static List<ScoredRow> lance(String uri, BufferAllocator alloc, FullTextQuery q, int limit, String filter) throws Exception {
        return lance(uri, -1, alloc, q, limit, filter);
    }

    static List<ScoredRow> lance(String uri, long version, BufferAllocator alloc, FullTextQuery q, int limit, String filter) throws Exception {
        List<ScoredRow> out = new ArrayList<>();
        ScanOptions.Builder b = new ScanOptions.Builder().fullTextQuery(q).withRowId(true).columns(List.of("id")).limit(limit);
        if (filter != null) {
            b.filter(filter).prefilter(true);
        }
        org.lance.ReadOptions.Builder ro = new org.lance.ReadOptions.Builder();
        if (version > 0) {
            ro.setVersion(version);
        }
        try (org.lance.Dataset ds = org.lance.Dataset.open(alloc, uri, ro.build());
             LanceScanner s = ds.newScan(b.build());
             ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                VectorSchemaRoot root = r.getVectorSchemaRoot();
                Float4Vector score = (Float4Vector) root.getVector("_score");
                UInt8Vector rid = (UInt8Vector) root.getVector("_rowid");
                for (int i = 0; i < root.getRowCount(); i++) {
                    out.add(new ScoredRow(rid.get(i), score.get(i)));
                }
            }
        }
        out.sort(ScoredRow::compare);
        return out;
    }

    /** Same scores rank by rank; the same rows except among those tied with the last score. */
    static void assertSameHits(String what, List<ScoredRow> expected, List<ScoredRow> actual) {
        assertThat(actual).as(what + " count").hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            float e = expected.get(i).score(), a = actual.get(i).score();
            assertThat(Math.abs(e - a)).as(what + " score at rank " + i + ": lance " + e + " javelin " + a
                            + "\nlance   " + expected.subList(0, Math.min(8, expected.size())) + "\njavelin " + actual.subList(0, Math.min(8, actual.size())))
                    .isLessThanOrEqualTo(1e-4f * Math.max(1f, Math.abs(e)));
        }
        if (expected.isEmpty()) {
            return;
        }
        float last = expected.get(expected.size() - 1).score();
        List<Long> e = expected.stream().filter(h -> h.score() > last * (1 + 1e-4f)).map(ScoredRow::rowId).sorted().toList();
        List<Long> a = actual.stream().filter(h -> h.score() > last * (1 + 1e-4f)).map(ScoredRow::rowId).sorted().toList();
        assertThat(a).as(what + " rows above the last score").isEqualTo(e);
    }

    static FullTextQuery lanceMatch(String text, boolean and) {
        return FullTextQuery.match(text, "text", 1.0f, Optional.empty(), 50, and ? FullTextQuery.Operator.AND : FullTextQuery.Operator.OR, 0);
    }

    @Test
    void matchQueriesAgreeWithLance() throws Exception {
        Random r = new Random(7);
        int queries = 0;
        try (Dataset latest = Dataset.open(uri).block(); Dataset ds = latest.checkout(indexedVersion).block()) {
            for (int i = 0; i < 240; i++) {
                String text = corpus.query(r);
                boolean and = i % 3 == 2;
                int limit = new int[] {10, 50, 1000}[i % 3 == 0 ? 2 : r.nextInt(2)];
                String filter = i % 5 == 4 ? "year >= 2005" : null;
                List<ScoredRow> expected = lance(uri, indexedVersion, alloc, lanceMatch(text, and), limit, filter);
                var search = ds.fullTextSearch(FtsQuery.match("text", text, and ? FtsQuery.Operator.AND : FtsQuery.Operator.OR)).limit(limit);
                if (filter != null) {
                    search = search.filter(filter);
                }
                List<ScoredRow> actual = search.hits().block();
                assertSameHits("query '" + text + "' and=" + and + " limit=" + limit + " filter=" + filter, expected, actual);
                queries++;
            }
        }
        assertThat(queries).isGreaterThanOrEqualTo(200);
    }

    /**
     * With an appended fragment the index does not cover: every matching row (indexed or not) is
     * found, as Lance finds it, and rows of indexed fragments keep Lance's scores. (Lance 7.0.0's
     * flat scores of unindexed rows are not reproduced exactly yet: they differ by up to ~15 %.)
     */
    @Test
    void unindexedFragmentRowsAreFound() throws Exception {
        Random r = new Random(11);
        try (Dataset ds = Dataset.open(uri).block()) {
            for (int i = 0; i < 40; i++) {
                String text = corpus.query(r);
                boolean and = i % 2 == 1;
                List<ScoredRow> expected = lance(uri, alloc, lanceMatch(text, and), 1_000_000, null);
                List<ScoredRow> actual = ds.fullTextSearch(FtsQuery.match("text", text, and ? FtsQuery.Operator.AND : FtsQuery.Operator.OR))
                        .hits().block();
                String what = "query '" + text + "' and=" + and;
                assertThat(actual.stream().map(ScoredRow::rowId).sorted().toList()).as(what + " rows")
                        .isEqualTo(expected.stream().map(ScoredRow::rowId).sorted().toList());
                java.util.Map<Long, Float> lanceScore = new java.util.HashMap<>();
                expected.forEach(h -> lanceScore.put(h.rowId(), h.score()));
                for (ScoredRow h : actual) {
                    float e = lanceScore.get(h.rowId());
                    if ((h.rowId() >>> 32) < 2) {
                        assertThat(Math.abs(e - h.score())).as(what + " score of row " + h.rowId()).isLessThanOrEqualTo(1e-4f * Math.max(1f, e));
                    }
                }
            }
        }
    }

    /** Every word of the corpus vocabulary, analysed by Javelin, is a token of the dictionary lance-core built (or a stop word). */
    @Test
    void analyzedVocabularyIsInLanceDictionary() throws Exception {
        java.nio.file.Path idxDir;
        try (var st = java.nio.file.Files.list(java.nio.file.Path.of(uri, "_indices"))) {
            idxDir = st.findFirst().orElseThrow();
        }
        var src = new io.javelin.index.LanceIndexFileSource(io.javelin.objectstore.ObjectStores.open(idxDir.toString()), "", alloc);
        var idx = io.javelin.index.fts.InvertedIndexReader.open(src, "lance").block();
        java.util.Set<String> dict = new java.util.HashSet<>();
        idx.partitions().forEach(p -> dict.addAll(p.tokens().keySet()));
        var analyzer = new io.javelin.index.fts.TextAnalyzer(idx.params());
        java.util.Set<String> ours = new java.util.HashSet<>();
        List<String> missing = new ArrayList<>();
        for (String w : corpus.vocab) {
            for (String t : analyzer.texts(w)) {
                ours.add(t);
                if (!dict.contains(t)) {
                    missing.add(w + " -> " + t);
                }
            }
        }
        // the dictionary holds nothing else than analysed corpus words (and the over-long token is dropped by both)
        List<String> extra = dict.stream().filter(t -> !ours.contains(t)).sorted().toList();
        assertThat(missing).as("analysed words absent from Lance's dictionary (Lance's extra tokens: " + extra + ")").isEmpty();
        assertThat(extra).as("Lance tokens Javelin's analysis never produces").isEmpty();
    }
}
