package io.javelin.interop.fts;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.index.fts.FtsParams;
import io.javelin.index.fts.InvertedIndex;
import io.javelin.index.fts.InvertedIndexReader;
import io.javelin.index.fts.TextAnalyzer;
import io.javelin.objectstore.ObjectStores;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lance.index.IndexType;

/**
 * Token streams against lance-core 7.0.0: for several tokenizer settings Lance indexes a varied
 * corpus (Unicode, punctuation, numbers, upper case, over-long tokens), and the dictionary it
 * builds must equal the set of tokens Javelin's analyser produces for the same documents, and
 * every document's token count ({@code _num_tokens}) must equal Javelin's.
 */
class FtsTokenizerDifferentialTest {

    static final int ROWS = 3000;

    @TempDir
    Path dir;
    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    static List<FtsParams> settings() {
        FtsParams d = FtsParams.defaults();
        return List.of(
                d.withStem(false).withRemoveStopWords(false),
                d.withBaseTokenizer("whitespace").withStem(false),
                d.withLowerCase(false).withAsciiFolding(false).withStem(false).withRemoveStopWords(false),
                d.withMaxTokenLength(8).withAsciiFolding(false),
                d.withBaseTokenizer("ngram").withNgram(2, 3, false).withStem(false).withRemoveStopWords(false));
    }

    @ParameterizedTest
    @MethodSource("settings")
    void dictionaryAndLengthsEqualLance(FtsParams params) throws Exception {
        FtsCorpus corpus = new FtsCorpus(300, 99);
        String uri = dir.resolve("tok.lance").toString();
        Dataset.write(uri, corpus.rows(alloc, 0, ROWS, 1000), FtsCorpus.SCHEMA, WriteParams.of(WriteMode.CREATE)).block().close();
        try (org.lance.Dataset ds = org.lance.Dataset.open(uri, alloc)) {
            ds.createIndex(List.of("text"), IndexType.INVERTED, Optional.of("text_idx"), FtsReadInteropTest.lanceParams(params), true);
        }
        Path seg;
        try (var s = Files.list(Path.of(uri, "_indices"))) {
            seg = s.findFirst().orElseThrow();
        }
        InvertedIndex idx;
        try (LanceIndexFileSource src = new LanceIndexFileSource(ObjectStores.open(seg.toString()), "", alloc)) {
            idx = InvertedIndexReader.open(src, "lance").block();
        }
        assertThat(idx.params()).isEqualTo(params);
        Set<String> lanceTokens = new HashSet<>();
        Map<Long, Integer> lanceLengths = new HashMap<>();
        for (var p : idx.partitions()) {
            lanceTokens.addAll(p.tokens().keySet());
            for (int d = 0; d < p.numDocs(); d++) {
                lanceLengths.put(p.rowId(d), p.numTokens(d));
            }
        }
        TextAnalyzer a = new TextAnalyzer(params);
        Set<String> ours = new HashSet<>();
        List<String> lengthDiffs = new ArrayList<>();
        for (long id = 0; id < ROWS; id++) {
            String doc = corpus.doc(id);
            List<String> ts = doc == null ? List.of() : a.texts(doc);
            ours.addAll(ts);
            int theirs = lanceLengths.getOrDefault(id, 0);
            if (theirs != ts.size() && lengthDiffs.size() < 10) {
                lengthDiffs.add(id + ": lance " + theirs + " javelin " + ts.size() + " [" + doc + "]");
            }
        }
        Set<String> onlyLance = new HashSet<>(lanceTokens);
        onlyLance.removeAll(ours);
        Set<String> onlyOurs = new HashSet<>(ours);
        onlyOurs.removeAll(lanceTokens);
        assertThat(onlyLance).as("tokens only Lance produced (Javelin only: " + onlyOurs + ")").isEmpty();
        assertThat(onlyOurs).as("tokens only Javelin produced").isEmpty();
        assertThat(lengthDiffs).as("documents whose token counts differ").isEmpty();
    }
}
