package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Javelin;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class JavelinCliTest {

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
    void demoPrintsVersionKernelsAndRunsToTheEnd() {
        Result r = run("demo");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("Javelin " + Javelin.version())
                .contains("SIMD provider : " + Javelin.simdProvider())
                .contains("time travel")
                .contains("Done in");
        assertThat(Javelin.version()).matches("\\d+\\.\\d+\\.\\d+.*");
    }

    @Test
    void unknownCommandIsAUsageError() {
        Result r = run("no-such-command");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no-such-command");
    }
}
