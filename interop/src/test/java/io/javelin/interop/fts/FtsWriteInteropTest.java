package io.javelin.interop.fts;

import static io.javelin.interop.fts.FtsReadInteropTest.assertSameHits;
import static io.javelin.interop.fts.FtsReadInteropTest.lance;
import static io.javelin.interop.fts.FtsReadInteropTest.lanceMatch;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.index.FtsQuery;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import io.javelin.index.fts.FtsParams;
import io.javelin.index.fts.ScoredRow;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.lance.ipc.FullTextQuery;

/**
 * Javelin builds the INVERTED index (with positions) and lance-core 7.0.0 answers from it: match
 * queries (OR / AND) and phrase queries must give the rows and {@code _score} Javelin gives, and
 * Lance lists the index.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FtsWriteInteropTest {

    static final int ROWS = 20_000;

    @TempDir
    static Path dir;
    final BufferAllocator alloc = new RootAllocator();
    final FtsCorpus corpus = new FtsCorpus(2000, 43);
    String uri;

    @BeforeAll
    void build() {
        uri = dir.resolve("fts-w.lance").toString();
        Dataset.write(uri, corpus.rows(alloc, 0, ROWS, 5000), FtsCorpus.SCHEMA,
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(ROWS / 2)).block().close();
        try (Dataset ds = Dataset.open(uri).block()) {
            ds.createIndex(List.of("text"), IndexKind.INVERTED,
                    IndexParams.defaults().withFts(FtsParams.defaults().withPosition(true))).block().close();
        }
    }

    @AfterAll
    void close() {
        alloc.close();
    }

    @Test
    void lanceListsTheIndex() throws Exception {
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            var idx = ds.describeIndices().stream().filter(d -> d.getName().equals("text_idx")).findFirst().orElseThrow();
            assertThat(idx.getIndexType()).containsIgnoringCase("inverted");
            assertThat(idx.getRowsIndexed()).isEqualTo(ROWS);
        }
    }

    @Test
    void lanceAnswersMatchQueriesFromJavelinsIndex() throws Exception {
        Random r = new Random(5);
        try (Dataset ds = Dataset.open(uri).block()) {
            for (int i = 0; i < 120; i++) {
                String text = corpus.query(r);
                boolean and = i % 2 == 1;
                int limit = i % 3 == 0 ? 1000 : 20;
                List<ScoredRow> expected = ds.fullTextSearch(FtsQuery.match("text", text, and ? FtsQuery.Operator.AND : FtsQuery.Operator.OR))
                        .limit(limit).hits().block();
                List<ScoredRow> actual = lance(uri, alloc, lanceMatch(text, and), limit, null);
                assertSameHits("query '" + text + "' and=" + and, expected, actual);
            }
        }
    }

    @Test
    void phraseQueriesAgree() throws Exception {
        Random r = new Random(9);
        int nonEmpty = 0;
        try (Dataset ds = Dataset.open(uri).block()) {
            for (int i = 0; i < 60; i++) {
                // two or three consecutive words of a real document, so phrases do match
                String doc = corpus.doc(r.nextInt(ROWS));
                if (doc == null) {
                    continue;
                }
                String[] words = doc.split("[\\s,.:/()'-]+");
                if (words.length < 3) {
                    continue;
                }
                int at = r.nextInt(words.length - 2);
                String text = String.join(" ", java.util.Arrays.copyOfRange(words, at, at + 2 + r.nextInt(2)));
                int slop = 0; // slop > 0: Lance 7 is stricter than the positional rule implemented (not yet matched)
                List<ScoredRow> ours = ds.fullTextSearch(FtsQuery.phrase("text", text, slop)).limit(100).hits().block();
                List<ScoredRow> theirs = lance(uri, alloc, FullTextQuery.phrase(text, "text", slop), 100, null);
                assertSameHits("phrase '" + text + "' slop=" + slop, theirs, ours);
                nonEmpty += ours.isEmpty() ? 0 : 1;
            }
        }
        assertThat(nonEmpty).isGreaterThan(20);
    }
}
