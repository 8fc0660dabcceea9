package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code javelin tree show|convert} and {@code import --manifest-layout tree}. */
class TreeCommandTest {

    @TempDir
    Path tmp;

    @Test
    void importAsTreeShowConvert() throws Exception {
        Path golden = DatasetCliTest.golden(tmp);
        Path arrow = tmp.resolve("rows.arrow");
        assertThat(DatasetCliTest.run("export", golden.toString(), arrow.toString()).exit()).isZero();
        assertThat(Files.size(arrow)).isPositive();

        String tree = tmp.resolve("tree.lance").toString();
        var imported = DatasetCliTest.run("import", arrow.toString(), tree, "--manifest-layout", "tree");
        assertThat(imported.exit()).as(imported.err()).isZero();
        var shown = DatasetCliTest.run("tree", "show", tree);
        assertThat(shown.exit()).as(shown.err()).isZero();
        assertThat(shown.out()).contains("layout:            tree").contains("height:").contains("leaves:")
                .contains("fragments:").contains("suffix:").contains("root:");
        var info = DatasetCliTest.run("info", tree);
        assertThat(info.exit()).as(info.err()).isZero();
        assertThat(info.out()).contains("(fragment tree)");

        String flat = tmp.resolve("flat.lance").toString();
        assertThat(DatasetCliTest.run("import", arrow.toString(), flat).exit()).isZero();
        assertThat(DatasetCliTest.run("tree", "show", flat).out()).contains("layout:            flat");
        var converted = DatasetCliTest.run("tree", "convert", flat);
        assertThat(converted.exit()).as(converted.err()).isZero();
        assertThat(converted.out()).contains("version 2");
        assertThat(DatasetCliTest.run("tree", "show", flat).out()).contains("layout:            tree");
        assertThat(DatasetCliTest.run("tree", "show", flat, "--version", "1").out()).contains("layout:            flat");
        assertThat(DatasetCliTest.run("scan", flat, "--format", "csv").out())
                .isEqualTo(DatasetCliTest.run("scan", tree, "--format", "csv").out());
        assertThat(DatasetCliTest.run("import", arrow.toString(), tmp.resolve("x").toString(), "--layout", "bogus").exit())
                .isEqualTo(2);
    }
}
