package io.javelin.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * CI smoke mode: every benchmark runs once, in this JVM, for a few milliseconds. It checks that the
 * harness works (setup, benchmark body, teardown, no leaks), not how fast anything is.
 */
class BenchmarkSmokeTest {

    @Test
    void everyBenchmarkRunsOnce() throws Exception {
        Options options = new OptionsBuilder()
                .include("io\\.javelin\\.jmh\\..*Benchmark\\..*")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(20))
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        assertThat(results).isNotEmpty();
        for (RunResult r : results) {
            assertThat(r.getPrimaryResult().getScore())
                    .as(r.getParams().getBenchmark() + " " + r.getParams())
                    .isPositive();
        }
    }
}
