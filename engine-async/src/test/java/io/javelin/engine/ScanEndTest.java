package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a scan or take signals its end (an error of one fragment, or a limit reached while other fragments are
 * still being decoded), no batch may still be under construction in the caller's allocator: callers close the
 * allocator right after the terminal signal. Before the scan settled its in-flight work first, a batch finished
 * on another thread after that close and its page memory was never freed (about once in 50 failed scans).
 * Off-heap memory is checked by LeakCheckExtension; Arrow's accounting by closing each allocator at once.
 */
class ScanEndTest {

    @TempDir
    Path tmp;

    /** The golden multi-fragment dataset (official Lance), with its last fragment's data file damaged if asked. */
    private Path golden(boolean damageLast) throws Exception {
        Path src = Path.of(getClass().getResource("/golden/versions_deletes").toURI());
        Path dst = tmp.resolve(damageLast ? "damaged" : "intact");
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
        if (damageLast) {
            String last;
            try (Dataset d = Dataset.open(dst.toString()).block()) {
                var frags = d.fragments();
                last = frags.get(frags.size() - 1).fragment().getFiles(0).getPath();
            }
            try (FileChannel ch = FileChannel.open(dst.resolve("data").resolve(last), StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[64]), ch.size() - 64);
            }
        }
        return dst;
    }

    @Test
    void aFailedScanHasReleasedEverythingWhenItsErrorArrives() throws Exception {
        try (Dataset ds = Dataset.open(golden(true).toString()).block()) {
            for (int i = 0; i < 300; i++) {
                RootAllocator a = new RootAllocator();
                int batch = 7 + i % 50;
                assertThatThrownBy(() -> ds.scanner().batchSize(batch).scan(a)
                        .doOnNext(VectorSchemaRoot::close).then().block())
                        .as("a damaged data file is reported, typed")
                        .isInstanceOf(DatasetException.class);
                assertThat(a.getAllocatedMemory()).as("iteration %d", i).isZero();
                a.close();
            }
        }
    }

    @Test
    void aScanCutShortByItsLimitHasSettledWhenItCompletes() throws Exception {
        Random rnd = new Random(7);
        try (Dataset ds = Dataset.open(golden(false).toString()).block()) {
            long rows = ds.count().block();
            for (int i = 0; i < 300; i++) {
                long limit = 1 + rnd.nextInt((int) rows);
                RootAllocator a = new RootAllocator();
                long got = ds.scanner().batchSize(5 + rnd.nextInt(40)).limit(limit).scan(a)
                        .map(b -> {
                            try (b) {
                                return (long) b.getRowCount();
                            }
                        })
                        .reduce(0L, Long::sum).block();
                assertThat(got).isEqualTo(limit);
                assertThat(a.getAllocatedMemory()).as("iteration %d", i).isZero();
                a.close();
            }
        }
    }

    @Test
    void aFailedTakeHasReleasedEverythingWhenItsErrorArrives() throws Exception {
        try (Dataset ds = Dataset.open(golden(true).toString()).block()) {
            long rows = ds.count().block();
            List<String> columns = ds.schema().getFields().stream().map(f -> f.getName()).toList();
            long[] all = new long[(int) rows];
            for (int i = 0; i < all.length; i++) {
                all[i] = i;
            }
            for (int i = 0; i < 200; i++) {
                RootAllocator a = new RootAllocator();
                assertThatThrownBy(() -> ds.take(all, columns, a).doOnNext(VectorSchemaRoot::close).block())
                        .isInstanceOf(DatasetException.class);
                assertThat(a.getAllocatedMemory()).as("iteration %d", i).isZero();
                a.close();
            }
        }
    }
}
