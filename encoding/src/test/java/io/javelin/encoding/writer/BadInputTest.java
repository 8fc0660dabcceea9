package io.javelin.encoding.writer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** Typed errors for bad input, and nothing half-written is ever published. */
class BadInputTest {

    @TempDir
    Path dir;

    private static Flux<VectorSchemaRoot> batches(BufferAllocator alloc, Schema schema, int n, int rows) {
        return batches(Flux.range(0, n), alloc, schema, rows);
    }

    /** Each batch is closed once the writer has consumed it (or the stream ended): no leaks on error or cancel. */
    private static Flux<VectorSchemaRoot> batches(Flux<Integer> ids, BufferAllocator alloc, Schema schema, int rows) {
        return ids.concatMap(b -> reactor.core.publisher.Mono.using(
                () -> TestBatches.batch(schema, alloc, 1, (long) b * rows, rows),
                reactor.core.publisher.Mono::just, VectorSchemaRoot::close, false), 1);
    }

    @Test
    void batchWithAnotherSchemaIsASchemaMismatch() {
        Schema fileSchema = TestBatches.goldenTypes();
        Schema other = new Schema(List.of(TestBatches.f("id", new ArrowType.Int(32, true), false)));
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            StepVerifier.create(LanceFileWriter.write(batches(alloc, other, 1, 10), fileSchema, store, "x.lance",
                            WriteOptions.defaults()))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(SchemaMismatchException.class)
                            .hasMessageContaining("Batch has 1 fields, the file schema has 24"))
                    .verify(Duration.ofSeconds(30));
            assertThat(dir.resolve("x.lance")).doesNotExist();
        }
    }

    @Test
    void fieldTypeMismatchNamesTheField() {
        Schema fileSchema = new Schema(List.of(TestBatches.f("a", new ArrowType.Int(64, true), true)));
        Schema other = new Schema(List.of(TestBatches.f("a", ArrowType.Utf8.INSTANCE, true)));
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            StepVerifier.create(LanceFileWriter.write(batches(alloc, other, 1, 10), fileSchema, store, "x.lance",
                            WriteOptions.defaults()))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(SchemaMismatchException.class)
                            .hasMessageContaining("Field a of the batch is a: Utf8, expected a: Int(64, true)"))
                    .verify(Duration.ofSeconds(30));
        }
    }

    @Test
    void mapNeedsVersion22() {
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            for (LanceFileVersion v : List.of(LanceFileVersion.V2_0, LanceFileVersion.V2_1)) {
                StepVerifier.create(LanceFileWriter.write(batches(alloc, TestBatches.mapSchema(), 1, 10),
                                TestBatches.mapSchema(), store, "m.lance", WriteOptions.of(v)))
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(UnsupportedTypeException.class)
                                .hasMessageContaining("Map field 'm' needs file version 2.2 or later"))
                        .verify(Duration.ofSeconds(30));
            }
            assertThat(dir.resolve("m.lance")).doesNotExist();
        }
    }

    @Test
    void unsupportedArrowTypeIsTyped() {
        Schema s = new Schema(List.of(TestBatches.f("iv", new ArrowType.Interval(
                org.apache.arrow.vector.types.IntervalUnit.DAY_TIME), true)));
        assertThatThrownBy(() -> new FileEncoder(s, WriteOptions.defaults()))
                .isInstanceOf(UnsupportedTypeException.class)
                .hasMessageContaining("Unsupported Arrow type for field 'iv'");
    }

    @Test
    void badFieldMetadataIsTyped() {
        Schema s = new Schema(List.of(TestBatches.f("s", ArrowType.Utf8.INSTANCE, true,
                java.util.Map.of("lance-encoding:compression", "brotli"))));
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            StepVerifier.create(LanceFileWriter.write(batches(alloc, s, 1, 10), s, store, "b.lance", WriteOptions.defaults()))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(LanceWriteException.class)
                            .hasMessageContaining("Unknown compression scheme"))
                    .verify(Duration.ofSeconds(30));
            assertThat(dir.resolve("b.lance")).doesNotExist();
        }
    }

    @Test
    void failureMidStreamPublishesNothingLocally() throws Exception {
        Schema schema = TestBatches.goldenTypes();
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            AtomicInteger n = new AtomicInteger();
            Flux<VectorSchemaRoot> failing = batches(alloc, schema, 5, 2000).doOnNext(b -> {
                if (n.incrementAndGet() == 4) {
                    throw new IllegalStateException("source died");
                }
            });
            StepVerifier.create(LanceFileWriter.write(failing, schema, store, "f.lance",
                            WriteOptions.defaults().withPageSize(16 * 1024)))
                    .expectErrorMessage("source died")
                    .verify(Duration.ofSeconds(60));
            assertThat(dir.resolve("f.lance")).doesNotExist();
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.toList()).isEmpty();
            }
        }
    }

    @Test
    void cancelMidStreamPublishesNothing() throws Exception {
        Schema schema = TestBatches.goldenTypes();
        try (BufferAllocator alloc = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 1)) {
            Flux<VectorSchemaRoot> slow = batches(Flux.range(0, 1000).delayElements(Duration.ofMillis(20),
                    Schedulers.parallel()), alloc, schema, 500);
            Disposable d = LanceFileWriter.write(slow, schema, store, "c.lance", WriteOptions.defaults()).subscribe();
            Thread.sleep(300);
            d.dispose();
            Thread.sleep(300);
            assertThat(dir.resolve("c.lance")).doesNotExist();
            try (Stream<Path> files = Files.list(dir)) {
                assertThat(files.toList()).isEmpty();
            }
        }
    }

    @Test
    void failureMidStreamPublishesNothingInAnObjectStore() {
        Schema schema = TestBatches.goldenTypes();
        InMemoryObjectStore store = InMemoryObjectStore.createIsolated();
        try (BufferAllocator alloc = new RootAllocator()) {
            Flux<VectorSchemaRoot> failing = batches(alloc, schema, 3, 1000)
                    .concatWith(Flux.error(new IllegalStateException("upstream failed")));
            StepVerifier.create(LanceFileWriter.write(failing, schema, store, "dir/f.lance", WriteOptions.defaults()))
                    .expectErrorMessage("upstream failed")
                    .verify(Duration.ofSeconds(60));
            StepVerifier.create(store.list("dir/")).verifyComplete();
            // And a good write to the same store succeeds and is published.
            StepVerifier.create(LanceFileWriter.write(batches(alloc, schema, 2, 100), schema, store, "dir/f.lance",
                            WriteOptions.defaults()))
                    .assertNext(r -> assertThat(r.rows()).isEqualTo(200))
                    .verifyComplete();
            StepVerifier.create(store.list("dir/").count()).expectNext(1L).verifyComplete();
        } finally {
            store.close();
        }
    }
}
