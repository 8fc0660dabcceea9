package io.javelin.index.fts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.CorruptIndexException;
import io.javelin.testing.FuzzSweep;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The inverted-index decoders: the fst token map lance-core 7.0.0 wrote (golden, 299 tokens of a
 * small corpus), BitPacker4x and v1 posting/position blocks round trips, and the corrupt-input
 * contract (decode or {@link CorruptIndexException}, never another exception) under a mutation
 * sweep and truncations.
 */
class FtsDecodersTest {

    static byte[] goldenFst() throws Exception {
        return FuzzSweep.resource(FtsDecodersTest.class, "/golden/fts/lance700-part_0_tokens.fst");
    }

    @Test
    void decodesLanceFst() throws Exception {
        List<FstTokenMap.Entry> e = FstTokenMap.decode(goldenFst(), "golden");
        assertThat(e).hasSize(299);
        assertThat(e.stream().map(FstTokenMap.Entry::id).sorted().toList())
                .isEqualTo(java.util.stream.LongStream.range(0, 299).boxed().toList());
        List<String> tokens = e.stream().map(FstTokenMap.Entry::token).toList();
        assertThat(tokens).contains("quick", "fox", "dog", "run", "cafe", "naiv", "w299").doesNotContain("the", "fox ");
        List<String> sorted = new ArrayList<>(tokens);
        sorted.sort(InvertedIndexWriter::compareUtf8);
        assertThat(tokens).isEqualTo(sorted);
        // "quick" is the first token of the first document: id 0
        assertThat(e.stream().filter(x -> x.token().equals("quick")).findFirst().orElseThrow().id()).isZero();
    }

    @Test
    void bitPackerRoundTrips() {
        Random r = new Random(3);
        for (int bits = 0; bits <= 32; bits++) {
            int[] v = new int[128];
            for (int i = 0; i < 128; i++) {
                v[i] = bits == 0 ? 0 : (int) (r.nextLong() & ((1L << bits) - 1)) | (i == 5 ? 1 << (bits - 1) : 0);
            }
            assertThat(BitPacker4x.bitsNeeded(v)).isLessThanOrEqualTo(bits);
            byte[] out = new byte[BitPacker4x.blockBytes(bits)];
            BitPacker4x.pack(v, bits, out, 0);
            int[] back = new int[128];
            BitPacker4x.unpack(out, 0, bits, back);
            assertThat(back).as("bits " + bits).isEqualTo(v);
        }
    }

    static List<byte[]> blocks(PostingList pl) {
        List<byte[]> out = new ArrayList<>();
        for (int s = 0; s < pl.size(); s += 128) {
            out.add(InvertedIndexWriter.block(pl, s, Math.min(128, pl.size() - s), 1f));
        }
        return out;
    }

    static PostingList sample(int n, long seed) {
        Random r = new Random(seed);
        int[] docs = new int[n];
        int[] freqs = new int[n];
        int d = r.nextInt(10);
        for (int i = 0; i < n; i++) {
            d += 1 + r.nextInt(i % 50 == 0 ? 5000 : 20);
            docs[i] = d;
            freqs[i] = 1 + r.nextInt(r.nextInt(10) == 0 ? 300 : 3);
        }
        return new PostingList(docs, freqs, null);
    }

    @Test
    void postingBlocksRoundTrip() {
        for (int n : new int[] {1, 5, 127, 128, 129, 256, 1000}) {
            PostingList pl = sample(n, n);
            PostingList back = PostingCodec.decode(blocks(pl), n, "t");
            assertThat(back.docs()).isEqualTo(pl.docs());
            assertThat(back.freqs()).isEqualTo(pl.freqs());
        }
        assertThatThrownBy(() -> PostingCodec.decode(blocks(sample(200, 1)), 201, "t")).isInstanceOf(CorruptIndexException.class);
    }

    @Test
    void positionsRoundTrip() {
        for (int n : new int[] {1, 3, 128, 129, 300}) {
            int[] pos = new int[n];
            for (int i = 0, p = 0; i < n; i++) {
                pos[i] = p += 1 + i % 7;
            }
            assertThat(PostingCodec.decodePositions(InvertedIndexWriter.positionParts(pos), "t")).isEqualTo(pos);
        }
    }

    static void decodeFst(byte[] b) {
        try {
            assertThat(FstTokenMap.decode(b, "fuzz")).isNotNull();
        } catch (CorruptIndexException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    static void decodePosting(byte[] b) {
        try {
            // the bytes as one block of an unknown length: try a full block and a tail of 40 docs
            try {
                PostingCodec.decode(List.of(b), 128, "fuzz");
            } catch (CorruptIndexException e) {
                PostingCodec.decode(List.of(b), 40, "fuzz");
            }
        } catch (CorruptIndexException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    @Test
    void corruptFstIsTyped() throws Exception {
        List<byte[]> seeds = List.of(goldenFst());
        var r = FuzzSweep.of("fts-fst", seeds).run(3000, 41, FtsDecodersTest::decodeFst);
        assertThat(r.rejected()).isPositive();
        FuzzSweep.of("fts-fst", seeds).truncations(400, FtsDecodersTest::decodeFst);
    }

    @Test
    void corruptPostingBlocksAreTyped() {
        List<byte[]> seeds = List.of(blocks(sample(128, 7)).get(0), blocks(sample(40, 8)).get(0));
        var r = FuzzSweep.of("fts-posting", seeds).run(3000, 42, FtsDecodersTest::decodePosting);
        assertThat(r.rejected()).isPositive();
        FuzzSweep.of("fts-posting", seeds).truncations(300, FtsDecodersTest::decodePosting);
    }

    @Test
    void analyzerPipeline() {
        TextAnalyzer a = new TextAnalyzer(FtsParams.defaults());
        assertThat(a.texts("The QUICK brown foxes, running: Café naïve ⅷ")).containsExactly("quick", "brown", "fox", "run", "cafe", "naiv", "viii");
        List<TextAnalyzer.Token> ts = a.tokens("the fox");
        assertThat(ts.get(0).position()).isEqualTo(1); // the stop word keeps its position
        TextAnalyzer ws = new TextAnalyzer(FtsParams.defaults().withBaseTokenizer("whitespace").withStem(false).withRemoveStopWords(false));
        assertThat(ws.texts("c++ e-mail\tx")).containsExactly("c++", "e-mail", "x");
        TextAnalyzer raw = new TextAnalyzer(FtsParams.defaults().withBaseTokenizer("raw").withLowerCase(false).withStem(false));
        assertThat(raw.texts("Hello World")).containsExactly("Hello World");
        TextAnalyzer ng = new TextAnalyzer(FtsParams.defaults().withBaseTokenizer("ngram").withStem(false).withRemoveStopWords(false));
        assertThat(ng.texts("abcd")).containsExactly("abc", "bcd");
        // tokens of max_token_length bytes or more are dropped
        TextAnalyzer longTok = new TextAnalyzer(FtsParams.defaults().withMaxTokenLength(6));
        assertThat(longTok.texts("short longer")).containsExactly("short");
    }
}
