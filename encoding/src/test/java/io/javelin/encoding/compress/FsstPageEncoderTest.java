package io.javelin.encoding.compress;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The page encoder's output is byte-identical to the reference longest-match encoder's, and decodes back. */
class FsstPageEncoderTest {

    @Test
    void sameCodesAsTheReferenceEncoderOnTrainedTables() {
        Random rnd = new Random(11);
        String[] words = {"lance", "vector", "search", "columnar", "format", "java", "reactive", "arrow", "a", "ab"};
        for (int round = 0; round < 6; round++) {
            List<byte[]> values = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                StringBuilder sb = new StringBuilder();
                int k = rnd.nextInt(9);
                for (int w = 0; w < k; w++) {
                    sb.append(round % 2 == 0 ? words[rnd.nextInt(words.length)] : Integer.toHexString(rnd.nextInt()))
                            .append(round % 3 == 0 ? "" : " ");
                }
                if (round == 5) {
                    sb.append((char) (rnd.nextInt(200) + 1));
                }
                values.add(sb.toString().getBytes(StandardCharsets.UTF_8));
            }
            FsstSymbolTable table = FsstEncoder.train(values);
            FsstPageEncoder enc = new FsstPageEncoder(table);
            int total = values.stream().mapToInt(v -> v.length).sum();
            byte[] data = new byte[total];
            long[] ends = new long[values.size()];
            int at = 0;
            for (int i = 0; i < values.size(); i++) {
                System.arraycopy(values.get(i), 0, data, at, values.get(i).length);
                at += values.get(i).length;
                ends[i] = at;
            }
            byte[] out = new byte[(int) FsstPageEncoder.maxOutput(total)];
            long[] outEnds = new long[values.size()];
            enc.encodeAll(data, ends, values.size(), out, outEnds);
            long start = 0;
            for (int i = 0; i < values.size(); i++) {
                byte[] mine = Arrays.copyOfRange(out, (int) start, (int) outEnds[i]);
                assertThat(mine).as("round %d value %d", round, i).isEqualTo(FsstEncoder.encode(table, values.get(i)));
                start = outEnds[i];
            }
        }
    }

    @Test
    void uncompressedTableCopies() {
        FsstPageEncoder enc = new FsstPageEncoder(FsstSymbolTable.uncompressed());
        byte[] data = "abcdef".getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[12];
        long[] outEnds = new long[2];
        assertThat(enc.encodeAll(data, new long[] {2, 6}, 2, out, outEnds)).isEqualTo(6);
        assertThat(outEnds).containsExactly(2, 6);
        assertThat(Arrays.copyOf(out, 6)).isEqualTo(data);
    }
}
