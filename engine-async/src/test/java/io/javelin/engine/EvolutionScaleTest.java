package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Timings of add-column / update / merge-insert at scale. Off in CI; run with
 * {@code -Djavelin.evolution.scale=ROWS} (e.g. 1000000).
 */
@EnabledIfSystemProperty(named = "javelin.evolution.scale", matches = "\\d+")
class EvolutionScaleTest {

    @TempDir
    Path tmp;

    @Test
    void timings() {
        int n = Integer.parseInt(System.getProperty("javelin.evolution.scale"));
        try (BufferAllocator alloc = new RootAllocator()) {
            long t0 = System.nanoTime();
            Dataset v1 = Dataset.write(tmp.resolve("ds.lance").toString(), rows(alloc, 0, n, 8192), schema(),
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(256 * 1024)).block();
            long t1 = System.nanoTime();
            Dataset v2 = v1.addColumns(Map.of("twice", "id * 2 + s.a")).block();
            long t2 = System.nanoTime();
            UpdateResult u = v2.update("id % 10 = 0", Map.of("name", "'upd'", "twice", "twice + 1")).block();
            long t3 = System.nanoTime();
            Dataset v3 = u.dataset();
            int m = n / 10;
            Flux<VectorSchemaRoot> src = v3.scanner().filter("id >= " + (n - m / 2)).scan(alloc).map(b -> {
                BigIntVector id = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i += 2) {
                    id.set(i, id.get(i) + n);
                }
                return b;
            });
            MergeInsertResult r = v3.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(src).block();
            long t4 = System.nanoTime();
            Dataset v4 = v3.dropColumns(List.of("score")).block();
            Dataset v5 = v4.renameColumn("name", "label").block();
            long t5 = System.nanoTime();
            System.out.printf("EVOLUTION-SCALE rows=%d write=%dms add-column(expr)=%dms update(10%%: %d rows)=%dms"
                            + " merge-insert(%d source rows: %d updated, %d inserted)=%dms drop+rename=%dms%n",
                    n, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, u.rowsUpdated(), (t3 - t2) / 1_000_000,
                    r.updated() + r.inserted(), r.updated(), r.inserted(), (t4 - t3) / 1_000_000, (t5 - t4) / 1_000_000);
            assertThat(r.dataset().count().block()).isEqualTo(n + r.inserted());
            for (Dataset d : List.of(v1, v2, v3, r.dataset(), v4, v5)) {
                d.close();
            }
        }
    }
}
