package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.io.LocalFileSource;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.testing.GoldenFixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.test.StepVerifier;

@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class ReaderApiTest {

    static final String[] FILES = {"files/types_v2_0.lance", "files/types_v2_1.lance", "files/types_v2_2.lance",
        "encodings_v2_0/fragment-0.lance", "encodings_v2_1/fragment-0.lance", "encodings_v2_2/fragment-1.lance"};

    static LanceFileReader open(String f) {
        return LanceFileReader.open(LocalFileSource.open(GoldenFixtures.path(f))).block();
    }

    /** Row {@code i} of every column as comparable strings. */
    static List<List<String>> rows(VectorSchemaRoot root) {
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < root.getRowCount(); i++) {
            List<String> row = new ArrayList<>();
            for (FieldVector v : root.getFieldVectors()) {
                Object o = v.getObject(i);
                row.add(o instanceof byte[] b ? Arrays.toString(b) : String.valueOf(o));
            }
            out.add(row);
        }
        return out;
    }

    static List<List<String>> all(LanceFileReader r, LanceFileReader.ScanOptions o, BufferAllocator a) {
        List<List<String>> out = new ArrayList<>();
        r.scan(o, a).doOnNext(root -> {
            try (root) {
                out.addAll(rows(root));
            }
        }).blockLast();
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"files/types_v2_0.lance", "files/types_v2_1.lance", "files/types_v2_2.lance",
        "encodings_v2_0/fragment-0.lance", "encodings_v2_1/fragment-0.lance", "encodings_v2_2/fragment-1.lance"})
    void rangesProjectionsAndTakesEqualTheFullScan(String file) {
        try (BufferAllocator a = new RootAllocator(); LanceFileReader r = open(file)) {
            List<List<String>> full = all(r, LanceFileReader.ScanOptions.all(1000), a);
            assertThat(full).hasSize((int) r.numRows());
            // batch sizes
            for (int bs : new int[] {1, 7, 64, 333, 5000}) {
                if (bs == 1 && r.numRows() > 200) {
                    assertThat(all(r, LanceFileReader.ScanOptions.all(bs).withRange(100, 160), a)).isEqualTo(full.subList(100, 160));
                } else {
                    assertThat(all(r, LanceFileReader.ScanOptions.all(bs), a)).isEqualTo(full);
                }
            }
            // ranges
            assertThat(all(r, LanceFileReader.ScanOptions.all(100).withRange(123, 777), a)).isEqualTo(full.subList(123, 777));
            assertThat(all(r, LanceFileReader.ScanOptions.all(100).withRange(999, 2000), a)).isEqualTo(full.subList(999, 1000));
            assertThat(all(r, LanceFileReader.ScanOptions.all(100).withRange(500, 500), a)).isEmpty();
            // projection: every column alone, and two in reverse order
            List<String> names = r.schema().getFields().stream().map(f -> f.getName()).toList();
            for (int c = 0; c < names.size(); c++) {
                int col = c;
                List<List<String>> one = all(r, LanceFileReader.ScanOptions.all(250).withColumns(List.of(names.get(c))), a);
                assertThat(one).isEqualTo(full.stream().map(row -> List.of(row.get(col))).toList());
            }
            List<String> two = List.of(names.get(names.size() - 1), names.get(0));
            assertThat(all(r, LanceFileReader.ScanOptions.all(250).withColumns(two), a))
                    .isEqualTo(full.stream().map(row -> List.of(row.get(names.size() - 1), row.get(0))).toList());
            // takes: random, unsorted, with repeats
            Random rnd = new Random(42);
            long[] idx = rnd.longs(200, 0, r.numRows()).toArray();
            idx[5] = idx[4];
            idx[7] = 0;
            idx[8] = r.numRows() - 1;
            try (VectorSchemaRoot t = r.take(idx, null, a).block()) {
                List<List<String>> expected = Arrays.stream(idx).mapToObj(i -> full.get((int) i)).toList();
                assertThat(rows(t)).isEqualTo(expected);
            }
        }
    }

    @Test
    void projectionFetchesOnlyTheProjectedColumns() throws IOException {
        byte[] bytes = Files.readAllBytes(GoldenFixtures.path("files/types_v2_1.lance"));
        MemorySource all = new MemorySource("all", bytes);
        MemorySource one = new MemorySource("one", bytes);
        try (BufferAllocator a = new RootAllocator()) {
            LanceFileReader ra = LanceFileReader.open(all).block();
            LanceFileReader ro = LanceFileReader.open(one).block();
            assertThat(one.reads()).as("opening a small file costs one read").isEqualTo(1);
            long openCost = one.bytesRead();
            ra.scan(LanceFileReader.ScanOptions.all(1000), a).doOnNext(VectorSchemaRoot::close).blockLast();
            ro.scan(LanceFileReader.ScanOptions.all(1000).withColumns(List.of("i8")), a).doOnNext(VectorSchemaRoot::close).blockLast();
            assertThat(one.bytesRead() - openCost).isPositive().isLessThan((all.bytesRead() - openCost) / 20);
        }
    }

    @Test
    void takeFetchesOnlyTheChunksAndRowsItNeeds() throws IOException {
        byte[] bytes = Files.readAllBytes(GoldenFixtures.path("files/types_v2_2.lance"));
        try (BufferAllocator a = new RootAllocator()) {
            for (String col : List.of("s", "ls", "vec", "bin")) {
                MemorySource whole = new MemorySource("whole", bytes);
                MemorySource some = new MemorySource("some", bytes);
                LanceFileReader rw = LanceFileReader.open(whole).block();
                LanceFileReader rs = LanceFileReader.open(some).block();
                long open = some.bytesRead();
                rw.scan(LanceFileReader.ScanOptions.all(1000).withColumns(List.of(col)), a).doOnNext(VectorSchemaRoot::close)
                        .blockLast();
                try (VectorSchemaRoot t = rs.take(new long[] {3, 4, 900}, List.of(col), a).block();
                     VectorSchemaRoot f = rw.take(new long[] {3, 4, 900}, List.of(col), a).block()) {
                    assertThat(rows(t)).isEqualTo(rows(f));
                }
                assertThat(some.bytesRead() - open).as(col).isLessThan((whole.bytesRead() - open) / 3);
            }
        }
    }

    @Test
    void batchesArriveOnDemandAndCancellationReleasesEverything() {
        try (BufferAllocator a = new RootAllocator(); LanceFileReader r = open("files/types_v2_1.lance")) {
            StepVerifier.create(r.scan(LanceFileReader.ScanOptions.all(128), a).doOnNext(VectorSchemaRoot::close), 0)
                    .thenRequest(1)
                    .assertNext(b -> assertThat(b.getRowCount()).isEqualTo(128))
                    .thenRequest(2)
                    .expectNextCount(2)
                    .thenCancel()
                    .verify();
            StepVerifier.create(r.scan(LanceFileReader.ScanOptions.all(128), a).doOnNext(VectorSchemaRoot::close))
                    .expectNextCount(8)
                    .verifyComplete();
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    @Test
    void badArgumentsAreRejected() {
        try (BufferAllocator a = new RootAllocator(); LanceFileReader r = open("files/types_v2_2.lance")) {
            assertThatThrownBy(() -> r.scan(LanceFileReader.ScanOptions.all(10).withColumns(List.of("nope")), a))
                    .isInstanceOf(IllegalArgumentException.class);
            StepVerifier.create(r.take(new long[] {1000}, null, a)).expectError(IndexOutOfBoundsException.class).verify();
            StepVerifier.create(r.scan(LanceFileReader.ScanOptions.all(0), a)).expectError(IllegalArgumentException.class).verify();
        }
    }
}
