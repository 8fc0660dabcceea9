package io.javelin.cli;

import static io.javelin.cli.DatasetCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The issue-30 options on the command line: import --max-bytes-per-file, merge-insert --memory-budget, tags --branch/--metadata. */
class TableOpsCliTest {

    @TempDir
    Path tmp;

    static final Schema SCHEMA = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    Path arrow(BufferAllocator alloc, String name, long from, int n) throws Exception {
        Path in = tmp.resolve(name);
        try (VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
             FileChannel ch = FileChannel.open(in, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
             ArrowFileWriter w = new ArrowFileWriter(r, null, ch)) {
            w.start();
            for (int at = 0; at < n; at += 1000) {
                r.allocateNew();
                int k = Math.min(1000, n - at);
                for (int i = 0; i < k; i++) {
                    ((BigIntVector) r.getVector("id")).setSafe(i, from + at + i);
                    ((VarCharVector) r.getVector("s")).setSafe(i, ("row-" + (from + at + i) + "-".repeat(60)).getBytes(StandardCharsets.UTF_8));
                }
                r.setRowCount(k);
                w.writeBatch();
            }
            w.end();
        }
        return in;
    }

    @Test
    void optionsOnTheCommandLine() throws Exception {
        String uri = tmp.resolve("ds.lance").toString();
        try (BufferAllocator alloc = new RootAllocator()) {
            var imp = run("import", arrow(alloc, "base.arrow", 0, 20_000).toString(), uri, "--max-bytes-per-file", "200000");
            assertThat(imp.exit()).as(imp.err()).isZero();
            try (Dataset d = Dataset.open(uri).block()) {
                assertThat(d.fragments().size()).isGreaterThan(4);
                assertThat(d.count().block()).isEqualTo(20_000);
            }
            var mi = run("merge-insert", uri, arrow(alloc, "src.arrow", 10_000, 20_000).toString(), "--on", "id",
                    "--memory-budget", String.valueOf(1 << 20), "--spill-dir", tmp.resolve("spill").toString());
            assertThat(mi.exit()).as(mi.err()).isZero();
            assertThat(mi.out()).contains("inserted 10000, updated 10000, deleted 0 rows").contains("has 30000 rows");
        }
        try (Dataset d = Dataset.open(uri).block(); Dataset b = d.createBranch("dev").block()) {
            var tag = run("tags", "create", uri, "dev-tag", String.valueOf(b.version()), "--branch", "dev", "--metadata", "owner=ci");
            assertThat(tag.exit()).as(tag.err()).isZero();
            assertThat(d.tags().block().get("dev-tag").branch()).isEqualTo("dev");
            assertThat(d.tags().block().get("dev-tag").metadata()).containsEntry("owner", "ci");
            assertThat(run("tags", "create", uri, "x", "--branch", "dev").exit()).isEqualTo(2);
        }
    }
}
