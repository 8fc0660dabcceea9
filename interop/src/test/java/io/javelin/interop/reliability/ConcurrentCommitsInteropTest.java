package io.javelin.interop.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetCommitConflictException;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
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
import reactor.util.retry.Retry;

/**
 * Concurrent writers on a local dataset through the public API (appends, deletes and updates of their
 * own id ranges, racing through the commit engine's rebase) and a compactor rewriting their fragments
 * meanwhile (retryable conflicts with the deletes/updates, re-run), then every version is opened by
 * both Javelin and lance-core 7.0.0 and must agree on its row count; the final ids are exactly the
 * acknowledged appends minus the acknowledged deletes, with the updated ids moved. Size: {@code -Djavelin.torture.interop.writers}
 * (default 6) × {@code -Djavelin.torture.interop.commits} (default 4).
 */
class ConcurrentCommitsInteropTest {

    static final Schema SCHEMA = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));
    static final int WRITERS = Integer.getInteger("javelin.torture.interop.writers", 6);
    static final int COMMITS = Integer.getInteger("javelin.torture.interop.commits", 4);
    static final int ROWS = 20;

    static final int COMPACTIONS = 3;

    @TempDir
    Path dir;

    final AtomicLong compacted = new AtomicLong();

    /** A definite, retryable conflict (a compaction and a delete/update of the same fragment) is re-run, as an application does. */
    static Mono<Void> retryConflicts(Mono<Void> op, AtomicLong conflicts) {
        return op.retryWhen(Retry.max(20).filter(e -> e instanceof DatasetCommitConflictException)
                .doBeforeRetry(s -> conflicts.incrementAndGet()));
    }

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
            AtomicLong commits = new AtomicLong(1);
            AtomicLong conflicts = new AtomicLong();
            Flux<Void> writers = Flux.range(0, WRITERS).flatMap(w -> Flux.range(0, COMMITS).concatMap(seq -> {
                long base = (long) w * 1_000_000 + (long) seq * ROWS;
                Mono<Void> op;
                if (seq % 4 == 2) { // delete a few ids of this writer's previous append
                    long from = base - ROWS + 3;
                    String filter = "id >= " + from + " AND id < " + (from + 5);
                    op = Mono.usingWhen(Dataset.open(uri), ds -> ds.delete(filter).doOnNext(Dataset::close)
                            .doOnSuccess(d -> {
                                for (long i = from; i < from + 5; i++) {
                                    expected.remove(i);
                                }
                            }).then(), ds -> Mono.fromRunnable(ds::close));
                } else if (seq % 4 == 3) { // update a few ids of the append three commits back: id += 500,000
                    long from = base - 3 * ROWS + 10;
                    String filter = "id >= " + from + " AND id < " + (from + 5);
                    op = Mono.usingWhen(Dataset.open(uri), ds -> ds.update(filter, Map.of("id", "id + 500000"))
                            .doOnNext(r -> r.dataset().close())
                            .doOnSuccess(r -> {
                                assertThat(r.rowsUpdated()).isEqualTo(5);
                                for (long i = from; i < from + 5; i++) {
                                    expected.remove(i);
                                    expected.add(i + 500_000);
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
                return retryConflicts(op, conflicts).doOnSuccess(v -> commits.incrementAndGet());
            }).subscribeOn(Schedulers.boundedElastic()), WRITERS);
            // a compactor racing the writers: rewrites the small fragments, conflicting with concurrent deletes/updates
            Flux<Void> compactor = Flux.range(0, COMPACTIONS).concatMap(i -> Mono.delay(Duration.ofMillis(300))
                    .then(retryConflicts(Mono.usingWhen(Dataset.open(uri), ds -> ds.compact(CompactionOptions.defaults())
                            .doOnNext(r -> {
                                if (r.dataset().version() != ds.version()) {
                                    commits.incrementAndGet();
                                    compacted.incrementAndGet();
                                }
                                r.dataset().close();
                            }).then(), ds -> Mono.fromRunnable(ds::close)), conflicts)))
                    .subscribeOn(Schedulers.boundedElastic());
            Flux.merge(writers, compactor).then().block(Duration.ofMinutes(5));

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
                assertThat(versions).isEqualTo(commits.get());
                assertThat(compacted.get()).as("compactions committed").isPositive();
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
                System.out.printf("[torture-interop] %d writers x %d commits (append, delete, update) and %d compactions on local FS"
                        + " (%d committed, %d retried conflicts): %d versions, %d rows, all opened by Javelin and lance-core with"
                        + " equal counts%n", WRITERS, COMMITS, COMPACTIONS, compacted.get(), conflicts.get(), versions,
                        expected.size());
            }
        }
    }
}
