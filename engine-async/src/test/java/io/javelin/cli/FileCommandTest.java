package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.testing.CanonChecksum;
import io.javelin.encoding.testing.GoldenFixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class FileCommandTest {

    @TempDir
    Path tmp;

    private record Result(int exit, String out, String err) {
    }

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new JavelinCli());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }

    @Test
    void inspectPrintsFooterColumnsPagesAndEncodings() {
        Path f = GoldenFixtures.copy("files/types_v2_2.lance", tmp);
        Result r = run("file", "inspect", f.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("version: 2.2 (footer 2.2)").contains("rows: 1000").contains("columns=25")
                .contains("column 24: 1 page(s)").contains("mini_block_layout(").contains("has_large_chunk=true")
                .contains("full_zip_layout(").contains("st: struct (id=");
    }

    @Test
    void catPrintsAHeaderAndRows() {
        Path f = GoldenFixtures.copy("files/types_v2_1.lance", tmp);
        Result r = run("file", "cat", f.toString(), "--limit", "3", "--columns", "id,s,li32");
        assertThat(r.exit()).as(r.err()).isZero();
        String[] lines = r.out().split("\n");
        assertThat(lines).hasSize(4);
        assertThat(lines[0]).isEqualTo("id\ts\tli32");
        assertThat(lines[1]).startsWith("0\t");
        assertThat(lines[2]).startsWith("1\t");
    }

    @Test
    void corruptFileIsAnErrorExit() throws Exception {
        Path f = tmp.resolve("bad.lance");
        java.nio.file.Files.write(f, new byte[100]);
        Result r = run("file", "inspect", f.toString());
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("Bad magic");
    }

    @ParameterizedTest
    @ValueSource(strings = {"types_v2_0", "types_v2_1", "types_v2_2"})
    void exportWritesEveryRowAsArrowIpc(String name) throws Exception {
        Path f = GoldenFixtures.copy("files/" + name + ".lance", tmp);
        Path out = tmp.resolve(name + ".arrow");
        Result r = run("file", "export", f.toString(), out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote 1000 rows");
        CanonChecksum sum = new CanonChecksum();
        try (BufferAllocator a = new RootAllocator(); FileChannel ch = FileChannel.open(out);
             ArrowFileReader reader = new ArrowFileReader(ch, a)) {
            while (reader.loadNextBatch()) {
                sum.update(reader.getVectorSchemaRoot());
            }
        }
        assertThat(sum.columns()).isEqualTo(GoldenFixtures.expectedColumns("files/" + name + ".lance.expected.json"));
    }
}
