package io.javelin.cli;

import static io.javelin.cli.DatasetCliTest.run;
import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The progress line: forced with --progress it ends with the exact row count; otherwise stderr stays empty. */
class ProgressCliTest {

    @TempDir
    Path tmp;

    /** The last repainted segment of stderr (the final line). */
    static String finalLine(String err) {
        List<String> parts = Arrays.stream(err.split("[\r\n]")).map(String::strip).filter(s -> !s.isEmpty()).toList();
        assertThat(parts).as("progress output: %s", err).isNotEmpty();
        return parts.getLast();
    }

    private static long count(String uri) {
        try (Dataset d = Dataset.open(uri).block()) {
            return d.count().block();
        }
    }

    @Test
    void exportAndImportReportExactRowsOnlyWhenAsked() throws Exception {
        String uri = DatasetCliTest.golden(tmp).toString();
        long rows = count(uri);
        Path plain = tmp.resolve("plain.arrow");
        Path shown = tmp.resolve("shown.arrow");

        DatasetCliTest.Result a = run("export", uri, plain.toString());
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(a.err()).isEmpty();
        DatasetCliTest.Result b = run("export", uri, shown.toString(), "--progress");
        assertThat(b.exit()).as(b.err()).isZero();
        assertThat(finalLine(b.err())).startsWith("export: " + rows + " rows, ");
        assertThat(b.err()).endsWith(System.lineSeparator());
        // stdout and the file do not change with progress on
        assertThat(b.out()).isEqualTo(a.out().replace("plain.arrow", "shown.arrow"));
        assertThat(Files.readAllBytes(shown)).isEqualTo(Files.readAllBytes(plain));

        assertThat(run("export", uri, plain.toString(), "--no-progress").err()).isEmpty();
        assertThat(run("export", uri, plain.toString(), "--progress", "--quiet").err()).isEmpty();

        String copy = tmp.resolve("copy.lance").toString();
        DatasetCliTest.Result imp = run("import", plain.toString(), copy, "--progress");
        assertThat(imp.exit()).as(imp.err()).isZero();
        assertThat(finalLine(imp.err())).startsWith("import: " + rows + " rows, " + Progress.human(Files.size(plain)));
        assertThat(imp.out()).startsWith("imported into ").contains(rows + " rows");
        DatasetCliTest.Result quiet = run("import", plain.toString(), tmp.resolve("copy2.lance").toString());
        assertThat(quiet.exit()).as(quiet.err()).isZero();
        assertThat(quiet.err()).isEmpty();
        assertThat(count(copy)).isEqualTo(rows);
    }

    @Test
    void scanToFileReportsRowsAfterFilterAndLimit() throws Exception {
        String uri = DatasetCliTest.golden(tmp).toString();
        Path csv = tmp.resolve("out.csv");
        DatasetCliTest.Result r = run("scan", uri, "--format", "csv", "-o", csv.toString(), "--filter", "id < 50", "--progress");
        assertThat(r.exit()).as(r.err()).isZero();
        long written = Files.readAllLines(csv).size() - 1;
        assertThat(r.out()).isEqualTo("wrote " + written + " rows to " + csv + System.lineSeparator());
        assertThat(finalLine(r.err())).startsWith("scan: " + written + " rows, ");

        Path arrow = tmp.resolve("out.arrow");
        DatasetCliTest.Result a = run("scan", uri, "--format", "arrow", "-o", arrow.toString(), "--limit", "7", "--progress");
        assertThat(a.exit()).as(a.err()).isZero();
        assertThat(finalLine(a.err())).startsWith("scan: 7 rows");
        assertThat(run("scan", uri, "--format", "arrow", "-o", arrow.toString(), "--limit", "7").err()).isEmpty();
        // printing to stdout is not a long operation to a file: no progress, even when asked
        assertThat(run("scan", uri, "--limit", "3", "--progress").err()).isEmpty();
    }

    @Test
    void compactReportsTheRewrittenRows() throws Exception {
        String uri = DatasetCliTest.golden(tmp).toString();
        long live = count(uri);
        DatasetCliTest.Result c = run("compact", uri, "--target-rows", "100000", "--progress");
        assertThat(c.exit()).as(c.err()).isZero();
        assertThat(c.out()).containsPattern("version \\d+: \\d+ fragment\\(s\\) rewritten into 1");
        // every fragment is merged into one: the rewrite reads every live row once
        assertThat(finalLine(c.err())).startsWith("compact: " + live + " rows");
        DatasetCliTest.Result again = run("compact", uri, "--target-rows", "100000");
        assertThat(again.out()).contains("nothing to compact");
        assertThat(again.err()).isEmpty();
    }

    @Test
    void repaintsAreThrottledAndShowThePercentage() throws Exception {
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new JavelinCli()).setErr(new PrintWriter(err));
        Progress.Options forced = new Progress.Options();
        forced.progress = true;
        try (Progress p = Progress.start(cli.getCommandSpec(), forced, "test", 200, Progress.UNKNOWN)) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 1000; i++) {
                p.add(i < 100 ? 1 : 0, 0); // a burst from a blocking-capable thread: one immediate repaint, then throttled
            }
            long slots = (System.nanoTime() - t0) / 200_000_000L;
            String burst = err.toString();
            assertThat(burst.chars().filter(ch -> ch == '\r').count()).isBetween(1L, 2 + slots);
            Thread.sleep(450); // the ticker repaints about every 200 ms
            assertThat(err.toString()).contains("test: 100/200 rows (50.0%)");
            p.add(100, 0);
            p.finish();
        }
        assertThat(finalLine(err.toString())).startsWith("test: 200 rows in ");
    }

    @Test
    void silentWithoutATerminal() {
        Progress.Options auto = new Progress.Options();
        assertThat(Progress.enabled(auto)).isFalse(); // test JVMs have no terminal
        assertThat(Progress.start(new CommandLine(new JavelinCli()).getCommandSpec(), auto, "x", 1, 1).enabled()).isFalse();
    }
}
