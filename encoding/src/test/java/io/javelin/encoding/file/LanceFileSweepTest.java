package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.testing.GoldenFixtures;
import io.javelin.testing.FuzzSweep;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

/**
 * The CI sweep over the file reader (footer, offset tables, column metadata, every page layout and
 * compression of the golden files of all three versions): seeded mutants of Lance 7.0.0 files, each
 * opened and scanned completely, must read or fail with {@link CorruptFileException}, within a time
 * limit, and leave no Arrow buffer behind. Coverage-guided fuzzing of the same decoders is
 * {@link LanceFileFuzzTest} (Jazzer). Mutants per seed: {@code -Djavelin.fuzz.mutants=N}.
 */
class LanceFileSweepTest {

    static void readAll(byte[] file) {
        try (BufferAllocator a = new RootAllocator()) {
            try {
                LanceFileReader r = LanceFileReader.open(new MemorySource("fuzz", file)).block();
                r.scan(LanceFileReader.ScanOptions.all(1024), a).doOnNext(VectorSchemaRoot::close).blockLast();
            } catch (CorruptFileException e) {
                throw new FuzzSweep.Rejected(e);
            }
        }
    }

    @Test
    void mutatedGoldenFilesReadOrFailTyped() throws Exception {
        List<byte[]> seeds = new ArrayList<>();
        for (String f : List.of("encodings_v2_0/fragment-0.lance", "encodings_v2_1/fragment-0.lance",
                "encodings_v2_2/fragment-0.lance", "files/types_v2_1.lance")) {
            seeds.add(Files.readAllBytes(GoldenFixtures.path(f)));
        }
        var r = FuzzSweep.of("lance-file", seeds).allocation(512L << 20, 64).run(150, 41, LanceFileSweepTest::readAll);
        assertThat(r.rejected()).isPositive();
        assertThat(r.succeeded()).isGreaterThanOrEqualTo(seeds.size());
    }

    /** The footer makes truncation detectable: no prefix of a file reads as a shorter file. */
    @Test
    void truncatedFilesAreRejected() throws Exception {
        List<byte[]> seeds = List.of(Files.readAllBytes(GoldenFixtures.path("encodings_v2_1/fragment-0.lance")),
                Files.readAllBytes(GoldenFixtures.path("encodings_v2_0/fragment-0.lance")));
        FuzzSweep.of("lance-file", seeds).truncations(40, LanceFileSweepTest::readAll);
    }
}
