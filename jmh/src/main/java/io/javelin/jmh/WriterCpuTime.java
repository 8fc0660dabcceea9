package io.javelin.jmh;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;

/**
 * Thread CPU time of {@link WriterBenchmark}'s encode (same data), per version: on a box shared with
 * other builds, wall-clock throughput swings by ±50% while the CPU time the encode itself burns stays
 * comparable between runs. The encode runs entirely on the calling thread. Prints the median and the
 * minimum of {@code runs} measured runs after {@code warmup} runs.
 *
 * <pre>
 *   java --add-modules jdk.incubator.vector -cp "jmh/target/classes:$(cat jmh/target/jmh-classpath.txt)" \
 *        io.javelin.jmh.WriterCpuTime [warmup=5] [runs=9]
 * </pre>
 */
public final class WriterCpuTime {
    private WriterCpuTime() {
    }

    public static void main(String[] args) {
        int warmup = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        try (BufferAllocator alloc = new RootAllocator()) {
            List<VectorSchemaRoot> batches = WriterBenchmark.data(alloc, WriterBenchmark.ROWS, WriterBenchmark.BATCH);
            try {
                for (String v : List.of("2.0", "2.1", "2.2")) {
                    WriteOptions o = WriteOptions.of(LanceFileVersion.parse(v));
                    double[] ms = new double[runs];
                    long size = 0;
                    for (int r = 0; r < warmup + runs; r++) {
                        long t0 = mx.getCurrentThreadCpuTime();
                        size = LanceFileWriter.encode(Flux.fromIterable(batches), WriterBenchmark.schema(), o)
                                .map(ByteBuffer::remaining).reduce(0L, Long::sum).block();
                        long t1 = mx.getCurrentThreadCpuTime();
                        if (r >= warmup) {
                            ms[r - warmup] = (t1 - t0) / 1e6;
                        }
                    }
                    Arrays.sort(ms);
                    System.out.printf("version %s: cpu ms/file median %.1f min %.1f (file %,d bytes, %d rows)%n",
                            v, ms[runs / 2], ms[0], size, WriterBenchmark.ROWS);
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
    }
}
