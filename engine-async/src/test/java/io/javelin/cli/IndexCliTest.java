package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code javelin index create|list} and {@code javelin search} on a copy of golden/indexed. */
class IndexCliTest {

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

    Path golden() throws Exception {
        Path src = Path.of(IndexCliTest.class.getResource("/golden/indexed").toURI());
        Path dst = tmp.resolve("indexed");
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

    @Test
    void listCreateAndSearch() throws Exception {
        String uri = golden().toString();
        Result list = run("index", "list", uri);
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out()).contains("id_btree", "BTree", "category_bitmap", "Bitmap", "text_fts", "Inverted", "vec_ivfpq", "IVF_PQ",
                "(4 indexes)");

        String q = Files.readString(Path.of(getClass().getResource("/golden/indexed.row42.vec.txt").toURI())).trim();
        Result search = run("search", uri, "--column", "vec", "--vector", q, "--k", "3", "--nprobes", "4", "--columns", "id,category",
                "--format", "csv");
        assertThat(search.exit()).as(search.err()).isZero();
        String[] lines = search.out().trim().split("\n");
        assertThat(lines[0]).isEqualTo("id,category,_distance");
        assertThat(lines[1]).startsWith("42,");
        assertThat(lines).hasSize(4);

        Result create = run("index", "create", uri, "--column", "num", "--type", "btree");
        assertThat(create.exit()).as(create.err()).isZero();
        assertThat(create.out()).contains("created BTree index num_idx on num", "dataset version 6");
        assertThat(run("index", "list", uri).out()).contains("num_idx", "(5 indexes)");
        Result scan = run("scan", uri, "--filter", "num = 7", "--columns", "id,num", "--format", "csv");
        assertThat(scan.exit()).isZero();

        Result drop = run("index", "drop", uri, "num_idx");
        assertThat(drop.exit()).as(drop.err()).isZero();
        assertThat(run("index", "list", uri).out()).doesNotContain("num_idx").contains("(4 indexes)");
        assertThat(run("index", "drop", uri, "num_idx").exit()).isEqualTo(2);

        Result bad = run("index", "create", uri, "--column", "num", "--type", "nope");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("Unknown index type 'nope'");
        Result badVec = run("search", uri, "--column", "vec", "--vector", "1,2,x");
        assertThat(badVec.exit()).isEqualTo(2);
        Result dim = run("search", uri, "--column", "vec", "--vector", "1,2,3");
        assertThat(dim.exit()).isEqualTo(2);
        assertThat(dim.err()).contains("dimensions");
    }
}
