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

    /**
     * The S3 form at tiny size: S3Proxy behind the latency proxy, every case on both engines, traffic counted per
     * engine, the S3 reports written.
     */
    @Test
    void s3FormCountsEachEnginesRequestsAndWritesTheS3Reports(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        SideBySide.Options o = new SideBySide.Options(3000, 1024, 1, 0, 2, 100, 512, tmp.resolve("data"), out, true, "s3", 5);
        List<SideBySide.Case> cases = SideBySide.run(o);

        assertThat(cases).extracting(SideBySide.Case::name).containsExactly("full_scan", "scan_id", "scan_f", "scan_s",
                "scan_vec", "filter", "take_100", "write");
        for (SideBySide.Case c : cases) {
            assertThat(c.produced().get("javelin").rows()).as(c.name()).isEqualTo(c.produced().get("lance-core").rows());
            for (String e : List.of("javelin", "lance-core")) {
                LatencyProxy.Traffic t = c.traffic().get(e);
                assertThat(t).as(c.name() + " " + e).isNotNull();
                assertThat(t.requests()).as(c.name() + " " + e).isPositive();
                if (c.name().equals("write")) {
                    // 3000 rows of a 512-byte vector each went up
                    assertThat(t.bytesUp()).as(e).isGreaterThan(3000L * 512);
                } else {
                    assertThat(t.bytesDown()).as(c.name() + " " + e).isPositive();
                }
            }
        }
        // request-count parity: the filtered scan's late materialization is coalesced into as few GETs as lance-core's
        SideBySide.Case filter = cases.get(5);
        assertThat(filter.traffic().get("javelin").requests()).isLessThanOrEqualTo(filter.traffic().get("lance-core").requests());
        // the whole scan downloads at least the vectors, and each engine about the same bytes
        SideBySide.Case full = cases.get(0);
        assertThat(full.traffic().get("javelin").bytesDown()).isGreaterThan(3000L * 512)
                .isLessThan(2 * full.traffic().get("lance-core").bytesDown());
        assertThat(Files.readString(out.resolve("side-by-side-s3.json"))).contains("\"store\": \"s3\"", "\"requests\"",
                "\"bytes_down\"");
        assertThat(Files.readString(out.resolve("side-by-side-s3.md"))).contains("| full_scan", "lance-core requests");
        assertThat(out.resolve("side-by-side-s3.png")).exists();
        assertThat(out.resolve("side-by-side.json")).doesNotExist();
    }
}
