package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DatasetTest {

    @TempDir
    Path tmp;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void noArrowLeaks() {
        alloc.close();
    }

    private String uri(String store) {
        return store.equals("memory") ? "memory://" + getClass().getSimpleName() + "-" + System.nanoTime() + "/ds.lance"
                : tmp.resolve("ds.lance").toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"local", "memory"})
    void writeScanTakeDeleteTimeTravel(String store) {
        String uri = uri(store);
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 3000, 500), schema(),
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000)).block()) {
            assertThat(v1.version()).isEqualTo(1);
            assertThat(v1.fragments()).hasSize(3);
            assertThat(v1.count().block()).isEqualTo(3000);
            assertThat(v1.schema().getFields()).extracting(f -> f.getName()).containsExactly("id", "name", "score", "s");

            // projection + filter
            List<List<String>> r = collect(v1.scanner().columns("id", "name").filter("id >= 10 AND id < 13").scan(alloc));
            assertThat(r).containsExactly(List.of("10", "n10"), List.of("11", "n11"), List.of("12", "n12"));
            assertThat(v1.count("score > 0.5").block()).isEqualTo(expectedCount(0, 3000, x -> x % 11 != 0 && DatasetTestSupport.score(x) > 0.5));

            try (Dataset v2 = v1.append(rows(alloc, 3000, 1000, 300), schema()).block()) {
                assertThat(v2.version()).isEqualTo(2);
                assertThat(v2.count().block()).isEqualTo(4000);
                try (Dataset v3 = v2.delete("id % 2 = 0 OR id >= 3500").block()) {
                    assertThat(v3.version()).isEqualTo(3);
                    assertThat(v3.count().block()).isEqualTo(1750);
                    List<List<String>> ids = collect(v3.scanner().columns("id").scan(alloc));
                    assertThat(ids).hasSize(1750);
                    assertThat(ids.get(0)).containsExactly("1");
                    assertThat(ids.get(1749)).containsExactly("3499");
                    // take by logical position, by row address
                    try (VectorSchemaRoot t = v3.take(new long[] {0, 1749, 5}, List.of("id", "s.a"), alloc).block()) {
                        assertThat(DatasetTestSupport.rowsOf(t)).containsExactly(List.of("1", "{\"a\":1}"),
                                List.of("3499", "{\"a\":6}"), List.of("11", "{\"a\":4}"));
                    }
                    try (VectorSchemaRoot t = v3.takeRowAddresses(new long[] {(1L << 32) | 1, 3}, List.of("name"), alloc).block()) {
                        assertThat(DatasetTestSupport.rowsOf(t)).containsExactly(List.of("n1001"), List.of("n3"));
                    }
                    assertThatThrownBy(() -> v3.takeRowAddresses(new long[] {2}, null, alloc).block())
                            .isInstanceOf(InvalidScanException.class).hasMessageContaining("deleted").hasMessageContaining(uri);
                    // row ids / addresses, limit and offset
                    List<List<String>> withIds = collect(v3.scanner().columns("id").withRowId(true).withRowAddress(true)
                            .offset(499).limit(3).scan(alloc));
                    assertThat(withIds).containsExactly(List.of("999", "999", "999"),
                            List.of("1001", String.valueOf((1L << 32) | 1), String.valueOf((1L << 32) | 1)),
                            List.of("1003", String.valueOf((1L << 32) | 3), String.valueOf((1L << 32) | 3)));
                    // versions, tags, time travel
                    assertThat(v3.versions().block()).extracting(VersionInfo::version).containsExactly(1L, 2L, 3L);
                    v3.createTag("two", 2).block();
                    assertThat(v3.tags().block()).containsOnlyKeys("two");
                    try (Dataset t2 = Dataset.open(uri, Map.of(), "two").block();
                         Dataset old = v3.checkout(1).block()) {
                        assertThat(t2.version()).isEqualTo(2);
                        assertThat(t2.count().block()).isEqualTo(4000);
                        assertThat(old.count().block()).isEqualTo(3000);
                    }
                }
            }
        }
        try (Dataset latest = Dataset.open(uri).block()) {
            assertThat(latest.version()).isEqualTo(3);
        }
    }

    private static long expectedCount(long from, long to, java.util.function.LongPredicate p) {
        long n = 0;
        for (long i = from; i < to; i++) {
            if (p.test(i)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void nestedProjectionKeepsOnlyTheChosenChild() {
        String uri = uri("memory");
        try (Dataset ds = Dataset.write(uri, rows(alloc, 0, 20, 20), schema(), WriteParams.of(WriteMode.CREATE)).block()) {
            List<List<String>> r = collect(ds.scanner().columns("s.b", "id").filter("s.a = 3").scan(alloc));
            assertThat(r).isNotEmpty().allSatisfy(row -> assertThat(row.get(0)).startsWith("{\"b\":"));
            assertThat(ds.scanner().columns("s.b").outputSchema().getFields().get(0).getChildren()).hasSize(1);
        }
    }

    @Test
    void typedErrorsCarryUriAndVersion() {
        String uri = uri("memory");
        assertThatThrownBy(() -> Dataset.open(uri).block()).isInstanceOf(DatasetNotFoundException.class)
                .hasMessageContaining(uri);
        try (Dataset ds = Dataset.write(uri, rows(alloc, 0, 10, 10), schema(), WriteParams.of(WriteMode.CREATE)).block()) {
            assertThatThrownBy(() -> Dataset.write(uri, rows(alloc, 0, 10, 10), schema(), WriteParams.of(WriteMode.CREATE)).block())
                    .isInstanceOf(DatasetAlreadyExistsException.class);
            assertThatThrownBy(() -> ds.scanner().filter("nope > 1").scan(alloc).blockLast())
                    .isInstanceOf(InvalidScanException.class).hasMessageContaining("version 1");
            assertThatThrownBy(() -> ds.scanner().columns("zzz").scan(alloc).blockLast()).isInstanceOf(InvalidScanException.class);
            assertThatThrownBy(() -> ds.checkout(7).block()).isInstanceOf(DatasetNotFoundException.class)
                    .hasMessageContaining("version 7");
            assertThatThrownBy(() -> ds.checkout("missing").block()).isInstanceOf(TagException.class);
            var other = new org.apache.arrow.vector.types.pojo.Schema(List.of(schema().getFields().get(0)));
            assertThatThrownBy(() -> ds.append(reactor.core.publisher.Flux.empty(), other).block())
                    .isInstanceOf(SchemaMismatchException.class);
        }
    }

    @Test
    void overwriteReplacesDataAndKeepsHistory() {
        String uri = uri("local");
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 100, 50), schema(), WriteParams.of(WriteMode.CREATE)).block();
             Dataset v2 = v1.overwrite(rows(alloc, 1000, 10, 10), schema(), WriteParams.of(WriteMode.OVERWRITE)
                     .withDataStorageVersion(io.javelin.encoding.writer.LanceFileVersion.V2_2)).block()) {
            assertThat(v2.count().block()).isEqualTo(10);
            assertThat(v2.dataStorageVersion()).isEqualTo("2.2");
            assertThat(collect(v2.scanner().columns("id").limit(1).scan(alloc))).containsExactly(List.of("1000"));
            assertThat(v1.count().block()).isEqualTo(100);
        }
    }

    @Test
    void distributedWriteCommitsFragmentsFromManyWorkersAsOneAppend() {
        String uri = uri("local");
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 10, 10), schema(), WriteParams.of(WriteMode.CREATE)).block()) {
            List<String> json = new java.util.ArrayList<>();
            for (int w = 0; w < 3; w++) {
                List<FragmentMetadata> frags = Dataset.writeFragments(uri, Map.of(), rows(alloc, 100 * (w + 1), 20, 20), schema(),
                        WriteParams.of(WriteMode.APPEND)).block();
                frags.forEach(f -> json.add(f.toJson()));
            }
            assertThat(json.get(0)).contains("\"files\"").contains("\"column_indices\"").contains("\"physical_rows\":20");
            assertThat(Dataset.open(uri).block()).satisfies(d -> {
                try (d) {
                    assertThat(d.version()).isEqualTo(1);
                }
            });
            List<FragmentMetadata> parsed = json.stream().map(FragmentMetadata::fromJson).toList();
            try (Dataset v2 = Dataset.commit(uri, Map.of(), WriteMode.APPEND, parsed, schema()).block()) {
                assertThat(v2.version()).isEqualTo(2);
                assertThat(v2.count().block()).isEqualTo(70);
                assertThat(v2.fragments()).extracting(f -> f.id()).containsExactly(0L, 1L, 2L, 3L);
                assertThat(v2.count("id >= 300").block()).isEqualTo(20);
            }
        }
    }
}
