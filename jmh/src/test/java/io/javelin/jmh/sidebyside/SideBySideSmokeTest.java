package io.javelin.jmh.sidebyside;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CI smoke mode of the side-by-side runner: a few thousand rows, one repetition, both engines. Checks
 * the harness (every case runs on both engines, they agree on row counts, the reports are written),
 * not the timings.
 */
class SideBySideSmokeTest {

    @Test
    void runsEveryCaseOnBothEnginesAndWritesTheReports(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        SideBySide.Options o = new SideBySide.Options(3000, 1024, 1, 0, 2, 100, 512, tmp.resolve("data"), out, true);
        List<SideBySide.Case> cases = SideBySide.run(o);

        assertThat(cases).extracting(SideBySide.Case::name).containsExactly("full_scan", "scan_id", "scan_f", "scan_s",
                "scan_vec", "filter", "take_100", "write");
        for (SideBySide.Case c : cases) {
            assertThat(c.millis().keySet()).containsExactly("javelin", "lance-core");
            assertThat(c.millis().get("javelin")).isNotEmpty().allMatch(ms -> ms > 0);
            assertThat(c.millis().get("lance-core")).isNotEmpty().allMatch(ms -> ms > 0);
            assertThat(c.produced().get("javelin").rows()).as(c.name()).isEqualTo(c.produced().get("lance-core").rows());
        }
        assertThat(cases.get(0).produced().get("javelin").rows()).isEqualTo(3000);
        // f is uniform in [0, 1): about 1% of the rows pass f < 0.01, and both engines return the same rows
        assertThat(cases.get(5).produced().get("javelin").rows()).isBetween(5L, 80L);

        String json = Files.readString(out.resolve("side-by-side.json"));
        assertThat(json).contains("\"full_scan\"", "\"take_100\"", "\"ratio_time_ours_over_theirs\"", "\"rows\": 3000");
        assertThat(Files.readString(out.resolve("side-by-side.md"))).contains("| full_scan", "| write");
        BufferedImage png = ImageIO.read(out.resolve("side-by-side.png").toFile());
        assertThat(png.getWidth()).isGreaterThan(100);
        assertThat(png.getHeight()).isGreaterThan(100);
    }
}
