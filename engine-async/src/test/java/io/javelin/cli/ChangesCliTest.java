package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

class ChangesCliTest {

    @TempDir
    Path tmp;

    static final Schema SCHEMA = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    @Test
    void changesPrintsTheFeedBetweenVersions() {
        String uri = tmp.resolve("c.lance").toString();
        try (BufferAllocator alloc = new RootAllocator()) {
            Flux<VectorSchemaRoot> rows = Flux.just(1).map(x -> {
                VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
                r.allocateNew();
                for (int i = 0; i < 5; i++) {
                    ((BigIntVector) r.getVector(0)).setSafe(i, i);
                }
                r.setRowCount(5);
                return r;
            });
            try (Dataset v1 = Dataset.write(uri, rows, SCHEMA, WriteParams.of(WriteMode.CREATE).withEnableStableRowIds(true)).block();
                 Dataset v2 = v1.delete("id = 3").block();
                 Dataset v3 = v2.update("id = 1", Map.of("id", "10")).block().dataset()) {
                assertThat(v3.version()).isEqualTo(3);
            }
        }
        DatasetCliTest.Result r = DatasetCliTest.run("changes", uri, "--from", "1", "--format", "csv");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines().toList()).containsExactlyInAnyOrder(
                "_change_type,_change_version,_rowid,_row_created_at_version,_row_last_updated_at_version,id",
                "update,3,1,1,3,10", "delete,2,3,1,1,3");
        DatasetCliTest.Result only2 = DatasetCliTest.run("changes", uri, "--from", "1", "--to", "2");
        assertThat(only2.exit()).as(only2.err()).isZero();
        assertThat(only2.out()).contains("| delete").doesNotContain("| update").contains("(1 changes from version 1 to 2)");
        DatasetCliTest.Result bad = DatasetCliTest.run("changes", uri, "--from", "3", "--to", "1");
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.err()).contains("from <= to");
    }

    @Test
    void cleanupDryRunTruncateAndDrop() {
        String uri = tmp.resolve("m.lance").toString();
        try (BufferAllocator alloc = new RootAllocator()) {
            for (WriteMode mode : List.of(WriteMode.CREATE, WriteMode.OVERWRITE)) {
                Flux<VectorSchemaRoot> rows = Flux.just(1).map(x -> {
                    VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
                    r.allocateNew();
                    ((BigIntVector) r.getVector(0)).setSafe(0, 7);
                    r.setRowCount(1);
                    return r;
                });
                Dataset.write(uri, rows, SCHEMA, WriteParams.of(mode)).block().close();
            }
        }
        DatasetCliTest.Result dry = DatasetCliTest.run("cleanup", uri, "--before-version", "2", "--delete-unverified", "--dry-run");
        assertThat(dry.exit()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("manifest of version 1").contains("data file that only removed versions use")
                .contains("dry run: would remove 1 version(s)");
        try (Dataset d = Dataset.open(uri).block()) {
            assertThat(d.versions().block()).hasSize(2); // nothing deleted
        }
        DatasetCliTest.Result t = DatasetCliTest.run("truncate", uri);
        assertThat(t.exit()).as(t.err()).isZero();
        assertThat(t.out()).contains("version 3: truncated (1 rows removed)");
        assertThat(DatasetCliTest.run("drop", uri).exit()).isEqualTo(2);
        DatasetCliTest.Result drop = DatasetCliTest.run("drop", uri, "--yes");
        assertThat(drop.exit()).as(drop.err()).isZero();
        assertThat(DatasetCliTest.run("info", uri).exit()).isNotZero();
    }
}
