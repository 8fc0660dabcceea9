package io.javelin.interop.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Concurrent writers on a local dataset through the public API (appends and deletes of their own
 * id ranges, racing through the commit engine's rebase), then every version is opened by both
 * Javelin and lance-core 7.0.0 and must agree on its row count; the final ids are exactly the
 * acknowledged appends minus the acknowledged deletes. Size: {@code -Djavelin.torture.interop.writers}
 * (default 6) × {@code -Djavelin.torture.interop.commits} (default 4).
 */
class ConcurrentCommitsInteropTest {

    static final Schema SCHEMA = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
    static final int WRITERS = Integer.getInteger("javelin.torture.interop.writers", 6);
    static final int COMMITS = Integer.getInteger("javelin.torture.interop.commits", 4);
    static final int ROWS = 20;

    @TempDir
    Path dir;

    static Flux<VectorSchemaRoot> ids(BufferAllocator alloc, long from, int n) {
        return Flux.defer(() -> {
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            BigIntVector id = (BigIntVector) root.getVector("id");
            id.allocateNew(n);
            for (int i = 0; i < n; i++) {
                id.set(i, from + i);
            }
            root.setRowCount(n);
            return Flux.just(root);
        });
    }

    @Test
    void everyVersionOpensInBothEnginesWithTheSameCount() throws Exception {
        String uri = dir.resolve("torture.lance").toString();
        Set<Long> expected = ConcurrentHashMap.newKeySet();
        try (BufferAllocator alloc = new RootAllocator()) {
            try (Dataset ds = Dataset.write(uri, ids(alloc, -ROWS, ROWS), SCHEMA, WriteParams.of(WriteMode.CREATE)).block()) {
                for (long i = -ROWS; i < 0; i++) {
                    expected.add(i);
                }
            }
            Flux.range(0, WRITERS).flatMap(w -> Flux.range(0, COMMITS).concatMap(seq -> {
                long base = (long) w * 1_000_000 + (long) seq * ROWS;
                Mono<Void> op;
                if (seq % 3 == 2) { // delete a few ids of this writer's previous append
                    long from = base - ROWS + 3;
                    String filter = "id >= " + from + " AND id < " + (from + 5);
                    op = Mono.usingWhen(Dataset.open(uri), ds -> ds.delete(filter).doOnNext(Dataset::close)
                            .doOnSuccess(d -> {
                                for (long i = from; i < from + 5; i++) {
                                    expected.remove(i);
                                }
                            }).then(), ds -> Mono.fromRunnable(ds::close));
                } else {
                    op = Mono.usingWhen(Dataset.open(uri), ds -> ds.append(ids(alloc, base, ROWS), SCHEMA).doOnNext(Dataset::close)
                            .doOnSuccess(d -> {
                                for (long i = base; i < base + ROWS; i++) {
                                    expected.add(i);
                                }
                            }).then(), ds -> Mono.fromRunnable(ds::close));
                }
                return op;
            }).subscribeOn(Schedulers.boundedElastic()), WRITERS).then().block(Duration.ofMinutes(5));

            try (Dataset latest = Dataset.open(uri).block()) {
                Set<Long> seen = ConcurrentHashMap.newKeySet();
                latest.scanner().columns("id").scan(alloc).doOnNext(b -> {
                    try (b) {
                        BigIntVector id = (BigIntVector) b.getVector("id");
                        for (int i = 0; i < b.getRowCount(); i++) {
                            assertThat(seen.add(id.get(i))).isTrue();
                        }
                    }
                }).blockLast();
                assertThat(seen).isEqualTo(expected);
                long versions = latest.version();
                assertThat(versions).isEqualTo(1 + (long) WRITERS * COMMITS);
                for (long v = 1; v <= versions; v++) {
                    long ours;
                    try (Dataset d = Dataset.open(uri, Map.of(), v).block()) {
                        ours = d.count().block();
                    }
                    try (org.lance.Dataset head = org.lance.Dataset.open(uri, alloc);
                         org.lance.Dataset theirs = head.checkoutVersion(v)) {
                        assertThat(theirs.countRows()).as("version %d", v).isEqualTo(ours);
                    }
                }
                try (org.lance.Dataset theirs = org.lance.Dataset.open(uri, alloc)) {
                    assertThat(theirs.countRows()).isEqualTo(expected.size());
                }
                System.out.printf("[torture-interop] %d writers x %d commits on local FS: %d versions, %d rows, all opened by "
                        + "Javelin and lance-core with equal counts%n", WRITERS, COMMITS, versions, expected.size());
            }
        }
    }
}
