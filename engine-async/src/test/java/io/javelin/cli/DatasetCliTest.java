package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.encoding.testing.CanonChecksum;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DatasetCliTest {

    @TempDir
    Path tmp;

    record Result(int exit, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = JavelinCli.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    static Path golden(Path dir) throws Exception {
        Path src = Path.of(DatasetCliTest.class.getResource("/golden/versions_deletes").toURI());
        Path dst = dir.resolve("versions_deletes");
        try (Stream<Path> s = Files.walk(src)) {
            for (Path p : s.toList()) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return dst;
    }

    /** Checksums (canon-v1, as the golden sidecars) of an Arrow IPC file. */
    static CanonChecksum checksum(Path arrow) throws IOException {
        CanonChecksum c = new CanonChecksum();
        try (BufferAllocator a = new RootAllocator(); FileChannel ch = FileChannel.open(arrow);
             ArrowFileReader r = new ArrowFileReader(ch, a)) {
            while (r.loadNextBatch()) {
                c.update(r.getVectorSchemaRoot());
            }
        }
        return c;
    }

    @Test
    void demoRunsTheMainJobEndToEnd() {
        Result r = run("demo", "--dir", tmp.resolve("d").toString(), "--rows", "3000");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("1. create").contains("-> version 1, 3000 rows").contains("2. append 1500 more rows")
                .contains("-> version 2, 4500 rows").contains("4. delete where").contains("-> version 3")
                .contains("5. filtered scan").contains("6. take").contains("7. versions").contains("| DELETE")
                .contains("8. time travel").contains("version 1:               3000 rows").contains("tag 'before-delete' (v2): 4500 rows");
        assertThat(Files.isDirectory(tmp.resolve("d/demo.lance/_versions"))).isTrue();
    }

    @Test
    void demoDefaultsToAFreshTempDir() {
        Result r = run("demo", "--rows", "500");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("Dataset: ").contains("javelin-demo-");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6})
    void exportOfGoldenVersionsEqualsLanceCoresRead(int version) throws Exception {
        Path ds = golden(tmp);
        Path out = tmp.resolve("v" + version + ".arrow");
        Result r = run("export", ds.toString(), out.toString(), "--version", String.valueOf(version));
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode expected = new ObjectMapper().readTree(getClass().getResource("/golden/versions_deletes.expected.json"))
                .path("by_version").path(String.valueOf(version)).path("checksums");
        CanonChecksum c = checksum(out);
        assertThat(c.columns().values().iterator().next().rows()).isEqualTo(expected.path("rows").asLong());
        assertThat(c.tableSha256()).isEqualTo(expected.path("table_sha256").asText());
    }

    @Test
    void exportByTagWithColumnsAndFilter() throws Exception {
        Path ds = golden(tmp);
        Path out = tmp.resolve("t.arrow");
        Result r = run("export", ds.toString(), out.toString(), "--tag", "with_deletes", "--columns", "id,name", "--filter", "id < 50");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("of version 6");
        CanonChecksum c = checksum(out);
        assertThat(c.columns()).containsOnlyKeys("id", "name");
        assertThat(c.columns().get("id").rows()).isEqualTo(45); // 0..49 minus id%10==3
    }

    @ParameterizedTest
    @ValueSource(strings = {"2.0", "2.1", "2.2"})
    void exportThenImportRoundTripsExactly(String storage) throws Exception {
        Path ds = golden(tmp);
        Path a = tmp.resolve("a.arrow");
        assertThat(run("export", ds.toString(), a.toString()).exit()).isZero();
        Path copy = tmp.resolve("copy.lance");
        Result imp = run("import", a.toString(), copy.toString(), "--mode", "create", "--data-storage-version", storage);
        assertThat(imp.exit()).as(imp.err()).isZero();
        assertThat(imp.out()).contains("version 1").contains("data storage " + storage);
        Path b = tmp.resolve("b.arrow");
        assertThat(run("export", copy.toString(), b.toString()).exit()).isZero();
        assertThat(checksum(b).columns()).isEqualTo(checksum(a).columns());
        // append and overwrite modes
        assertThat(run("import", a.toString(), copy.toString(), "--mode", "append").out()).contains("version 2");
        Result ow = run("import", a.toString(), copy.toString(), "--mode", "overwrite");
        assertThat(ow.out()).contains("version 3");
        assertThat(run("import", a.toString(), copy.toString()).exit()).isEqualTo(CliSupport.CONFLICT);
    }

    @Test
    void infoScanVersionsTagsDelete() throws Exception {
        Path ds = golden(tmp);
        String uri = ds.toString();
        Result info = run("info", uri);
        assertThat(info.exit()).as(info.err()).isZero();
        assertThat(info.out()).contains("version:      6").contains("rows:         9450").contains("id: Int(64, true) not null");
        assertThat(run("info", uri, "--version", "1").out()).contains("rows:         6000");

        Result table = run("scan", uri, "--columns", "id,name", "--filter", "id < 5", "--with-row-id");
        assertThat(table.exit()).as(table.err()).isZero();
        assertThat(table.out()).contains("| id ").contains("_rowid").contains("(4 rows)");
        Result csv = run("scan", uri, "--columns", "id", "--filter", "id < 3", "--format", "csv");
        assertThat(csv.out()).isEqualTo("id\n0\n1\n2\n");
        Result json = run("scan", uri, "--columns", "id,score", "--limit", "1", "--format", "json");
        assertThat(json.out()).startsWith("{\"id\":0,");
        Path arrow = tmp.resolve("s.arrow");
        Result ar = run("scan", uri, "--format", "arrow", "--output", arrow.toString(), "--limit", "10");
        assertThat(ar.out()).contains("wrote 10 rows");
        assertThat(run("scan", uri, "--format", "arrow").exit()).isEqualTo(CliSupport.USAGE);

        Result versions = run("versions", uri);
        assertThat(versions.out()).contains("| 1 ").contains("OVERWRITE").contains("APPEND").contains("DELETE")
                .contains("after_append").contains("with_deletes");
        assertThat(run("tags", "list", uri).out()).contains("after_append").contains("with_deletes");
        assertThat(run("tags", "create", uri, "first", "1").out()).contains("tag first -> version 1");
        assertThat(run("tags", "update", uri, "first", "2").out()).contains("tag first -> version 2");
        assertThat(run("tags", "create", uri, "first", "1").exit()).isEqualTo(CliSupport.NOT_FOUND);
        assertThat(run("tags", "delete", uri, "first").out()).contains("deleted tag first");

        Result del = run("delete", uri, "id >= 12000");
        assertThat(del.exit()).as(del.err()).isZero();
        assertThat(del.out()).contains("version 7");
        assertThat(run("info", uri).out()).contains("version:      7");
    }

    @Test
    void humanErrorsAndExitCodes() {
        Result missing = run("info", tmp.resolve("nope.lance").toString());
        assertThat(missing.exit()).isEqualTo(CliSupport.NOT_FOUND);
        assertThat(missing.err()).startsWith("error: ").doesNotContain("\tat ");
        Result verbose = run("info", tmp.resolve("nope.lance").toString(), "--verbose");
        assertThat(verbose.err()).contains("\tat ");
        Result badFilter = run("scan", tmp.resolve("nope.lance").toString(), "--filter", "((");
        assertThat(badFilter.exit()).isNotZero();
        assertThat(run("import", "x.arrow", "u", "--mode", "sideways").exit()).isNotZero();
        assertThat(run("bogus").exit()).isEqualTo(2);
    }
}
