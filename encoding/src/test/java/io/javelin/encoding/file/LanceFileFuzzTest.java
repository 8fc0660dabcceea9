package io.javelin.encoding.file;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.testing.GoldenFixtures;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Coverage-guided fuzzing of footer, metadata and page decoding: the fuzzer mutates bytes of small
 * valid files (all three versions) and may truncate them; reading must succeed or fail with
 * {@link CorruptFileException}. Plain {@code mvn test} replays the seeds (regression mode); fuzz with
 * {@code JAZZER_FUZZ=1 ./mvnw -pl encoding test -Dtest=LanceFileFuzzTest}.
 */
class LanceFileFuzzTest {

    private static final byte[][] SEEDS = load("encodings_v2_0/fragment-0.lance", "encodings_v2_1/fragment-0.lance",
            "encodings_v2_2/fragment-0.lance", "files/types_v2_1.lance");

    private static byte[][] load(String... files) {
        try {
            byte[][] out = new byte[files.length][];
            for (int i = 0; i < files.length; i++) {
                out[i] = Files.readAllBytes(GoldenFixtures.path(files[i]));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "30s")
    void mutatedFilesFailOnlyAsCorrupt(FuzzedDataProvider data) {
        byte[] seed = SEEDS[data.consumeInt(0, SEEDS.length - 1)];
        byte[] file = seed.clone();
        boolean metadataOnly = data.consumeBoolean();
        int mutations = data.consumeInt(0, 8);
        for (int i = 0; i < mutations; i++) {
            int at = metadataOnly ? file.length - 1 - data.consumeInt(0, Math.min(4096, file.length - 1))
                    : data.consumeInt(0, file.length - 1);
            file[at] = data.consumeByte();
        }
        if (data.consumeBoolean()) {
            file = Arrays.copyOf(file, data.consumeInt(0, file.length));
        }
        try (BufferAllocator a = new RootAllocator()) {
            LanceFileReader r = LanceFileReader.open(new MemorySource("fuzz", file)).block();
            r.scan(LanceFileReader.ScanOptions.all(1024), a).doOnNext(VectorSchemaRoot::close).blockLast();
        } catch (CorruptFileException expected) {
            // the only acceptable failure
        }
    }
}
