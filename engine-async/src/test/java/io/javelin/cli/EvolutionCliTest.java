package io.javelin.cli;

import static io.javelin.cli.DatasetCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
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
import reactor.core.publisher.Flux;

/** add-column, drop-column, rename-column, alter-column, update and merge-insert from the command line. */
class EvolutionCliTest {

    @TempDir
    Path tmp;

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("name", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    static VectorSchemaRoot batch(BufferAllocator alloc, long from, int n, String prefix) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
        r.allocateNew();
        for (int i = 0; i < n; i++) {
            ((BigIntVector) r.getVector("id")).setSafe(i, from + i);
            ((VarCharVector) r.getVector("name")).setSafe(i, (prefix + (from + i)).getBytes(StandardCharsets.UTF_8));
        }
        r.setRowCount(n);
        return r;
    }

    @Test
    void evolveUpdateAndMergeInsertFromTheCommandLine() throws Exception {
        String uri = tmp.resolve("ds.lance").toString();
        try (BufferAllocator alloc = new RootAllocator()) {
            Dataset.write(uri, Flux.just(1).map(x -> batch(alloc, 0, 100, "n")), SCHEMA, WriteParams.of(WriteMode.CREATE)).block().close();
            Path in = tmp.resolve("in.arrow");
            try (VectorSchemaRoot r = batch(alloc, 95, 10, "m");
                 FileChannel ch = FileChannel.open(in, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 ArrowFileWriter w = new ArrowFileWriter(r, null, ch)) {
                w.start();
                w.writeBatch();
                w.end();
            }
            var add = run("add-column", uri, "twice", "--expr", "id * 2");
            assertThat(add.exit()).as(add.err()).isZero();
            assertThat(add.out()).contains("added column twice; version 2").contains("twice:Int(64, true)");
            assertThat(run("add-column", uri, "note", "--type", "string").out()).contains("version 3");
            assertThat(run("rename-column", uri, "name", "label").out()).contains("renamed name to label; version 4");
            assertThat(run("drop-column", uri, "note").out()).contains("version 5").doesNotContain("note:");
            assertThat(run("alter-column", uri, "twice", "--cast", "int32").out()).contains("twice:Int(32, true)");
            var upd = run("update", uri, "--set", "label='x', twice=twice + 1", "--where", "id < 10");
            assertThat(upd.exit()).as(upd.err()).isZero();
            assertThat(upd.out()).contains("updated 10 rows; version 7 has 100 rows");
            var scan = run("scan", uri, "--filter", "id = 3", "--format", "csv");
            assertThat(scan.out()).contains("3,x,7");
            // the IPC file still has the old column names: a schema mismatch is a usage error
            var bad = run("merge-insert", uri, in.toString(), "--on", "id");
            assertThat(bad.exit()).isEqualTo(2);
            assertThat(bad.err()).contains("error:");
            assertThat(run("rename-column", uri, "label", "name").exit()).isZero();
            assertThat(run("drop-column", uri, "twice").exit()).isZero();
            var mi = run("merge-insert", uri, in.toString(), "--on", "id", "--delete-not-matched-by-source-if", "id < 5");
            assertThat(mi.exit()).as(mi.err()).isZero();
            assertThat(mi.out()).contains("inserted 5, updated 5, deleted 5 rows").contains("has 100 rows");
            assertThat(run("scan", uri, "--filter", "id >= 99", "--format", "csv").out()).contains("99,m99").contains("104,m104");
            // human errors and exit codes
            assertThat(run("add-column", uri, "x").exit()).isEqualTo(2);
            var missing = run("drop-column", uri, "nope");
            assertThat(missing.exit()).isEqualTo(2);
            assertThat(missing.err()).contains("does not exist");
            assertThat(run("update", uri, "--set", "id", "--where", "id = 1").exit()).isEqualTo(2);
            assertThat(run("update", uri, "--set", "name=nosuch + 1").exit()).isEqualTo(2);
        }
    }
}
