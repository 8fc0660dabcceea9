package io.javelin.interop.maintenance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetException;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.engine.maintenance.CompactionOptions;
import io.javelin.engine.maintenance.CompactionPlan;
import io.javelin.engine.maintenance.CompactionTask;
import io.javelin.engine.maintenance.RewriteResult;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Distributed compaction as Lance runs it: one planner, three workers (each its own dataset handle and
 * scheduler, tasks and results shipped as bytes), one commit, and a writer appending meanwhile. The result
 * holds every row once, in both engines, and lance-core keeps committing on top of it.
 */
class DistributedCompactionInteropTest extends InteropSupport {

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void threeWorkersOneCommitAndAConcurrentWriter(boolean stable) throws Exception {
        String uri = dir.resolve("dist.lance").toString();
        // small ×4, big, small ×4, big, small ×4: three runs of candidates, so three tasks
        Dataset.write(uri, ours(0, 400), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(100)
                .withEnableStableRowIds(stable)).block().close();
        long from = 400;
        for (int i = 0; i < 2; i++) {
            Dataset.write(uri, ours(from, 2000), SCHEMA, WriteParams.of(WriteMode.APPEND)).block().close();
            Dataset.write(uri, ours(from + 2000, 400), SCHEMA, WriteParams.of(WriteMode.APPEND).withMaxRowsPerFile(100)).block().close();
            from += 2400;
        }
        List<String> expected;
        CompactionPlan plan;
        try (Dataset ds = Dataset.open(uri).block()) {
            assertThat(ds.fragments()).hasSize(14);
            plan = ds.planCompaction(CompactionOptions.defaults().withTargetRowsPerFragment(1000)).block();
            expected = new ArrayList<>(ourRows(uri, ds.version()));
        }
        assertThat(plan.tasks()).hasSize(3).allSatisfy(t -> assertThat(t.fragmentIds()).hasSize(4));
        // tasks travel as Java-serialized plans and as JSON
        CompactionPlan shipped = roundTrip(plan);
        assertThat(shipped).isEqualTo(plan);
        List<String> taskJson = shipped.tasks().stream().map(CompactionTask::toJson).toList();

        List<Scheduler> workers = List.of(Schedulers.newSingle("worker-1"), Schedulers.newSingle("worker-2"),
                Schedulers.newSingle("worker-3"), Schedulers.newSingle("writer"));
        List<RewriteResult> results;
        try {
            List<Mono<String>> jobs = new ArrayList<>();
            for (int w = 0; w < 3; w++) {
                CompactionTask task = CompactionTask.fromJson(taskJson.get(w));
                jobs.add(Mono.usingWhen(Dataset.open(uri), ds -> ds.executeCompactionTask(task).map(RewriteResult::toJson),
                        ds -> Mono.fromRunnable(ds::close)).subscribeOn(workers.get(w)));
            }
            Mono<Void> writer = Dataset.write(uri, ours(10_000, 300), SCHEMA, WriteParams.of(WriteMode.APPEND).withMaxRowsPerFile(100))
                    .doOnNext(Dataset::close).then().subscribeOn(workers.get(3));
            List<String> resultJson = Flux.merge(writer.then(Mono.<String>empty()), Flux.mergeSequential(jobs)).collectList().block();
            assertThat(resultJson).hasSize(3);
            results = resultJson.stream().map(RewriteResult::fromJson).toList();
            try (Dataset latest = Dataset.open(uri).block()) {
                assertThat(latest.version()).isEqualTo(plan.readVersion() + 1); // only the writer committed so far
                var done = latest.commitCompaction(results).block();
                try (Dataset compacted = done.dataset()) {
                    assertThat(done.metrics().fragmentsRemoved()).isEqualTo(12);
                    assertThat(done.metrics().fragmentsAdded()).isEqualTo(3);
                    assertThat(compacted.fragments()).hasSize(3 + 2 + 3);
                    assertThat(compacted.hasStableRowIds()).isEqualTo(stable);
                }
            }
        } finally {
            workers.forEach(Scheduler::dispose);
        }
        for (long id = 10_000; id < 10_300; id++) {
            expected.add(id + "|" + (id % 9 == 0 ? "null" : String.valueOf(id * 3)));
        }
        Collections.sort(expected);
        try (org.lance.Dataset l = org.lance.Dataset.open(uri, alloc)) {
            assertThat(lanceRows(l)).isEqualTo(expected);
            assertThat(l.countRows()).isEqualTo(expected.size());
            assertThat(l.getFragments()).hasSize(8);
        }
        sameInBothEngines(uri);
        lanceWrite(uri, 20_000, 10, org.lance.WriteParams.WriteMode.APPEND, stable);
        try (Dataset d = Dataset.open(uri).block()) {
            assertThat(d.count().block()).isEqualTo(expected.size() + 10);
        }
        // committing the same results again: their fragments were rewritten since, a typed conflict; no results: no-op
        try (Dataset d = Dataset.open(uri).block()) {
            assertThatThrownBy(() -> d.commitCompaction(results).block()).isInstanceOf(DatasetException.class);
            try (Dataset same = d.commitCompaction(List.of()).block().dataset()) {
                assertThat(same.version()).isEqualTo(d.version());
            }
            CompactionTask stale = new CompactionTask(plan.readVersion(), List.of(999L), plan.options());
            assertThatThrownBy(() -> d.executeCompactionTask(stale).block()).isInstanceOf(DatasetException.class)
                    .hasMessageContaining("999");
        }
    }

    @SuppressWarnings("unchecked")
    static <T> T roundTrip(T value) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(out)) {
            o.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(out.toByteArray()))) {
            return (T) in.readObject();
        }
    }
}
