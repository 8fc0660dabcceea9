package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.testing.CanonChecksum;
import io.javelin.encoding.testing.GoldenFixtures;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** {@code javelin file write IN.arrow OUT.lance [--format-version …]}, checked by reading the result back. */
class FileWriteCommandTest {

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

    @ParameterizedTest
    @CsvSource({"types_v2_1,2.0,types_v2_0", "types_v2_1,2.1,types_v2_1", "types_v2_2,2.2,types_v2_2"})
    void writesArrowRowsAsALanceFile(String source, String version, String expected) throws Exception {
        Path golden = GoldenFixtures.copy("files/" + source + ".lance", tmp);
        Path arrow = tmp.resolve(source + ".arrow");
        assertThat(run("file", "export", golden.toString(), arrow.toString()).exit()).isZero();

        Path lance = tmp.resolve("out-" + version + ".lance");
        Result w = run("file", "write", arrow.toString(), lance.toString(), "--format-version", version);
        assertThat(w.exit()).as(w.err()).isZero();
        assertThat(w.out()).contains("wrote 1000 rows").contains("format " + version);
        assertThat(Files.exists(lance)).isTrue();

        Path back = tmp.resolve("back-" + version + ".arrow");
        Result e = run("file", "export", lance.toString(), back.toString());
        assertThat(e.exit()).as(e.err()).isZero();
        CanonChecksum sum = new CanonChecksum();
        try (BufferAllocator a = new RootAllocator(); FileChannel ch = FileChannel.open(back);
             ArrowFileReader reader = new ArrowFileReader(ch, a)) {
            while (reader.loadNextBatch()) {
                sum.update(reader.getVectorSchemaRoot());
            }
        }
        assertThat(sum.columns()).isEqualTo(GoldenFixtures.expectedColumns("files/" + expected + ".lance.expected.json"));
    }

    @Test
    void badVersionIsAUsageError() throws Exception {
        Path golden = GoldenFixtures.copy("files/types_v2_1.lance", tmp);
        Path arrow = tmp.resolve("t.arrow");
        assertThat(run("file", "export", golden.toString(), arrow.toString()).exit()).isZero();
        Result r = run("file", "write", arrow.toString(), tmp.resolve("x.lance").toString(), "--format-version", "3.0");
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).contains("Unsupported Lance file version: 3.0");
        assertThat(Files.exists(tmp.resolve("x.lance"))).isFalse();
    }
}
