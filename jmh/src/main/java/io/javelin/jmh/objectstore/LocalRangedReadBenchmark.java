package io.javelin.jmh.objectstore;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.io.PageIoScheduler;
import io.javelin.objectstore.io.PageResult;
import io.javelin.objectstore.memory.Buffer;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Local ranged reads through the page-I/O scheduler next to raw {@code FileChannel} positional
 * reads of the same ranges (page cache warm). Each operation reads one batch of sorted ranges that
 * together cover 16 MiB of a 64 MiB file. Throughput is batches/s; multiply by 16 MiB for MiB/s.
 *
 * <p>The raw baseline is single-threaded and reuses one direct buffer: the cheapest way to pull the
 * same bytes, with no off-heap allocation per range and no concurrency.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
public class LocalRangedReadBenchmark {

    private static final long FILE_SIZE = 64L << 20;
    private static final long BATCH_BYTES = 16L << 20;

    /** Size of each range read. */
    @Param({"4096", "65536", "1048576"})
    public int readSize;

    private Path dir;
    private ObjectStore store;
    private PageIoScheduler scheduler;
    private List<ByteRange> ranges;
    private FileChannel channel;
    private ByteBuffer rawBuffer;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("javelin-bench");
        Path file = dir.resolve("data.bin");
        byte[] chunk = new byte[1 << 20];
        Random rnd = new Random(42);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            for (long off = 0; off < FILE_SIZE; off += chunk.length) {
                rnd.nextBytes(chunk);
                ch.write(ByteBuffer.wrap(chunk));
            }
        }
        // Sorted random ranges, non-overlapping, covering BATCH_BYTES in total.
        int n = (int) (BATCH_BYTES / readSize);
        long slots = FILE_SIZE / readSize;
        List<Long> picks = new ArrayList<>();
        java.util.BitSet used = new java.util.BitSet((int) slots);
        while (picks.size() < n) {
            int s = rnd.nextInt((int) slots);
            if (!used.get(s)) {
                used.set(s);
                picks.add((long) s);
            }
        }
        picks.sort(Comparator.naturalOrder());
        ranges = new ArrayList<>(n);
        for (long s : picks) {
            ranges.add(ByteRange.of(s * readSize, readSize));
        }
        store = ObjectStores.open(dir.toString());
        scheduler = new PageIoScheduler(store);
        channel = FileChannel.open(file, StandardOpenOption.READ);
        rawBuffer = ByteBuffer.allocateDirect(readSize);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        channel.close();
        store.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public void rawFileChannel(Blackhole bh) throws IOException {
        for (ByteRange r : ranges) {
            rawBuffer.clear();
            long pos = r.offset();
            while (rawBuffer.hasRemaining()) {
                int k = channel.read(rawBuffer, pos);
                if (k < 0) {
                    throw new IOException("short read at " + pos);
                }
                pos += k;
            }
            bh.consume(rawBuffer.get(0));
        }
    }

    @Benchmark
    public void rawFileChannelOffHeapPerRange(Blackhole bh) throws IOException {
        // Same reads, but each into its own arena-allocated segment, as the store does.
        for (ByteRange r : ranges) {
            try (Arena arena = io.javelin.objectstore.memory.OffHeap.newArena("bench")) {
                MemorySegment seg = arena.allocate(r.length(), 64);
                ByteBuffer bb = seg.asByteBuffer();
                long pos = r.offset();
                while (bb.hasRemaining()) {
                    int k = channel.read(bb, pos);
                    if (k < 0) {
                        throw new IOException("short read at " + pos);
                    }
                    pos += k;
                }
                bh.consume(seg.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            }
        }
    }

    @Benchmark
    public void pageIoScheduler(Blackhole bh) {
        try (PageResult r = scheduler.submit("data.bin", ranges, 0).block(Duration.ofMinutes(1))) {
            for (Buffer b : r.buffers()) {
                bh.consume(b.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
            }
        }
    }
}
