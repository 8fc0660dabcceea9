package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.testing.GoldenFixtures;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Malformed files must fail with {@link CorruptFileException} naming file and offset, nothing else. */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class CorruptInputTest {

    static byte[] golden(String f) throws IOException {
        return Files.readAllBytes(GoldenFixtures.path(f));
    }

    /** Opens and fully scans; returns normally or throws CorruptFileException only. */
    static void readAll(String name, byte[] bytes, BufferAllocator a) {
        try {
            LanceFileReader r = LanceFileReader.open(new MemorySource(name, bytes)).block();
            r.scan(LanceFileReader.ScanOptions.all(512), a).doOnNext(VectorSchemaRoot::close).blockLast();
        } catch (CorruptFileException e) {
            assertThat(e.resource()).isEqualTo(name);
            assertThat(e.getMessage()).contains(name);
        } catch (Throwable t) {
            fail("not a CorruptFileException: " + t, t);
        }
    }

    @Test
    void truncationAtEveryOffsetIsReportedAsCorrupt() throws IOException {
        byte[] full = golden("encodings_v2_2/fragment-0.lance");
        try (BufferAllocator a = new RootAllocator()) {
            for (int len = 0; len < full.length; len++) {
                byte[] t = Arrays.copyOf(full, len);
                try {
                    LanceFileReader.open(new MemorySource("trunc", t)).block();
                    fail("truncation to " + len + " bytes was accepted");
                } catch (CorruptFileException e) {
                    assertThat(e.resource()).isEqualTo("trunc");
                    assertThat(e.offset()).isBetween(-1L, (long) len);
                }
            }
            readAll("full", full, a);
        }
    }

    @Test
    void badMagicAndVersion() throws IOException {
        byte[] b = golden("files/types_v2_1.lance");
        byte[] m = b.clone();
        m[m.length - 1] = 'X';
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("magic", m)).block())
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("Bad magic")
                .satisfies(e -> assertThat(((CorruptFileException) e).offset()).isEqualTo(m.length - 4));
        byte[] v = b.clone();
        v[v.length - 8] = 9;
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("version", v)).block())
                .isInstanceOf(CorruptFileException.class).hasMessageContaining("version 9.1");
    }

    @Test
    void offsetsPastEndOfFile() throws IOException {
        byte[] b = golden("files/types_v2_1.lance");
        for (int field = 0; field < 3; field++) {
            byte[] x = b.clone();
            ByteBuffer.wrap(x).order(ByteOrder.LITTLE_ENDIAN).putLong(x.length - 40 + 8 * field, x.length + 1000L);
            assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("past", x)).block())
                    .isInstanceOf(CorruptFileException.class).hasMessageContaining("outside the file");
        }
        byte[] n = b.clone();
        ByteBuffer.wrap(n).order(ByteOrder.LITTLE_ENDIAN).putInt(n.length - 12, 1 << 30); // num_columns
        assertThatThrownBy(() -> LanceFileReader.open(new MemorySource("cols", n)).block()).isInstanceOf(CorruptFileException.class);
    }

    @Test
    void garbageProtobufsInTheMetadataRegion() throws IOException {
        byte[] b = golden("files/types_v2_2.lance");
        long cms = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(b.length - 40);
        Random rnd = new Random(7);
        try (BufferAllocator a = new RootAllocator()) {
            for (int i = 0; i < 400; i++) {
                byte[] x = b.clone();
                int flips = 1 + rnd.nextInt(4);
                for (int k = 0; k < flips; k++) {
                    int at = (int) (cms + rnd.nextInt((int) (b.length - 40 - cms)));
                    x[at] = (byte) rnd.nextInt(256);
                }
                readAll("meta-" + i, x, a);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"files/types_v2_0.lance", "files/types_v2_1.lance", "files/types_v2_2.lance",
        "encodings_v2_0/fragment-0.lance", "encodings_v2_1/fragment-0.lance", "encodings_v2_2/fragment-0.lance"})
    void corruptPagesNeverEscapeAsOtherErrors(String file) throws IOException {
        byte[] b = golden(file);
        long cms = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong(b.length - 40);
        Random rnd = new Random(file.hashCode());
        try (BufferAllocator a = new RootAllocator()) {
            for (int i = 0; i < 60; i++) {
                byte[] x = b.clone();
                int flips = 1 + rnd.nextInt(16);
                for (int k = 0; k < flips; k++) {
                    int at = rnd.nextInt((int) cms);
                    x[at] = (byte) rnd.nextInt(256);
                }
                readAll("page-" + i, x, a);
            }
        }
    }
}
