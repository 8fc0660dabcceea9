package io.javelin.jmh;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFragment;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report's extra operations (replace 10, backfill by DataReplacement and by Merge) commit the
 * same fragment state on a flat and a tree table, the tree writes less per commit, and the chart is
 * a readable PNG.
 */
class FragmentTreeReportTest {

    static List<DataFragment> state(FragmentTreeBenchmark.Fixture fx) {
        return fx.open().loadFragments().block().stream().map(FragmentInfo::fragment).toList();
    }

    @Test
    void newOperationsGiveTheSameStateOnBothLayoutsAndTheTreeWritesLess(@TempDir Path dir) throws Exception {
        int n = 300;
        FragmentTreeBenchmark.Fixture flat = new FragmentTreeBenchmark.Fixture(n, false, 0);
        FragmentTreeBenchmark.Fixture tree = new FragmentTreeBenchmark.Fixture(n, true, 0);
        long[] put = new long[2];
        for (FragmentTreeBenchmark.Fixture fx : List.of(flat, tree)) {
            long before = fx.store.putBytes.get();
            fx.replaceTenByUpdate();
            fx.replaceTenByDataReplacement();
            fx.startBackfill();
            for (int i = 0; i < 3; i++) {
                fx.backfillByDataReplacement();
            }
            fx.backfillByMerge();
            put[fx == flat ? 0 : 1] = fx.store.putBytes.get() - before;
        }
        List<DataFragment> a = state(flat);
        List<DataFragment> b = state(tree);
        assertThat(b).hasSize(n).containsExactlyElementsOf(a);
        assertThat(a.stream().filter(f -> f.getFilesList().stream()
                .anyMatch(df -> df.getFieldsList().contains(flat.backfillField))).count()).isEqualTo(30);
        assertThat(a.stream().filter(f -> f.getFilesList().stream()
                .anyMatch(df -> df.getFieldsList().contains(flat.mergeField))).count()).isEqualTo(10);
        assertThat(put[1]).isLessThan(put[0]);

        FragmentTreeChart.Data data = new FragmentTreeChart.Data();
        data.add("narrow append 1 fragment", false, 1000, 87_000);
        data.add("narrow append 1 fragment", false, 10_000, 860_000);
        data.add("narrow append 1 fragment", true, 1000, 1_700);
        data.add("narrow append 1 fragment", true, 10_000, 1_300);
        Path png = dir.resolve("bench/chart.png");
        FragmentTreeChart.write(data, png);
        BufferedImage img = ImageIO.read(png.toFile());
        assertThat(img.getWidth()).isEqualTo(1100);
        assertThat(img.getHeight()).isEqualTo(640);
    }

    @Test
    void theLocalStoreFixtureCountsLikeTheInMemoryOneAndDeletesItsFiles() {
        FragmentTreeBenchmark.Fixture mem = new FragmentTreeBenchmark.Fixture(200, true, 0, true, false);
        FragmentTreeBenchmark.Fixture local = new FragmentTreeBenchmark.Fixture(200, true, 0, true, true);
        assertThat(local.store.dir).isDirectory();
        for (FragmentTreeBenchmark.Fixture fx : List.of(mem, local)) {
            fx.appendOne();
            fx.replaceTenByDataReplacement();
        }
        assertThat(state(local)).isEqualTo(state(mem)).hasSize(201);
        assertThat(local.store.putBytes.get()).isCloseTo(mem.store.putBytes.get(), org.assertj.core.data.Offset.offset(64L));
        assertThat(local.store.puts.get()).isEqualTo(mem.store.puts.get());
        local.store.close();
        mem.store.close();
        assertThat(local.store.dir).doesNotExist();
    }
}
