package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code javelin count URI [--filter EXPR]} prints exactly one integer line; {@code scan --order-by} sorts. */
class FilterCliTest {

    @TempDir
    Path tmp;

    @Test
    void countPrintsOneIntegerLine() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        DatasetCliTest.Result filtered = DatasetCliTest.run("count", ds.toString(), "--tag", "with_deletes", "--filter", "id < 50");
        assertThat(filtered.exit()).as(filtered.err()).isZero();
        assertThat(filtered.out()).isEqualTo("45" + System.lineSeparator()); // 0..49 minus id%10==3
        DatasetCliTest.Result fn = DatasetCliTest.run("count", ds.toString(), "--tag", "with_deletes", "--filter",
                "id < 50 AND abs(id - 10) <= 2 AND coalesce(name, 'x') IS NOT NULL");
        assertThat(fn.out()).isEqualTo("5" + System.lineSeparator()); // 8..12, none is id%10==3
        DatasetCliTest.Result all = DatasetCliTest.run("count", ds.toString());
        assertThat(all.exit()).as(all.err()).isZero();
        assertThat(all.out()).matches("\\d+\\R");
    }

    @Test
    void badFiltersAreUsageErrorsWithThePosition() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        DatasetCliTest.Result r = DatasetCliTest.run("count", ds.toString(), "--filter", "nosuch(id) > 1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown function 'nosuch'").contains("position 0");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void scanOrderByIsATopK() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        DatasetCliTest.Result r = DatasetCliTest.run("scan", ds.toString(), "--tag", "with_deletes", "--columns", "id",
                "--filter", "id < 50", "--order-by", "id desc", "--limit", "3", "--format", "csv");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("id\n49\n48\n47\n");
        DatasetCliTest.Result two = DatasetCliTest.run("scan", ds.toString(), "--tag", "with_deletes", "--columns", "id",
                "--filter", "id < 30", "--order-by", "id % 10 desc,id asc", "--limit", "4", "--format", "csv");
        assertThat(two.out()).isEqualTo("id\n9\n19\n29\n8\n");
    }
}
