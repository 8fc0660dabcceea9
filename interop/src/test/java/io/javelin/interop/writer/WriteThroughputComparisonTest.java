package io.javelin.interop.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.jmh.WriterBenchmark;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.file.LanceFileWriter;
import reactor.core.publisher.Flux;

/**
 * Write throughput next to lance-core's writer for the same data (the JMH WriterBenchmark shape).
 * A timing report, not a gate: results go to {@code target/write-throughput.md}.
 */
class WriteThroughputComparisonTest {

    @TempDir
    Path dir;

    @Test
    void javelinAndLanceCoreWriteTheSameData() throws Exception {
        int rows = Integer.getInteger("javelin.throughput.rows", 100_000);
        int rounds = 3;
        StringBuilder md = new StringBuilder("| version | rows | javelin ms (best of " + rounds + ") | lance-core ms | "
                + "javelin MB/s (file) | lance-core MB/s (file) |\n|---|---|---|---|---|---|\n");
        try (BufferAllocator alloc = new RootAllocator()) {
            List<VectorSchemaRoot> batches = WriterBenchmark.data(alloc, rows, 10_000);
            try {
                for (String v : List.of("2.0", "2.1", "2.2")) {
                    long ours = Long.MAX_VALUE;
                    long theirs = Long.MAX_VALUE;
                    long oursBytes = 0;
                    long theirBytes = 0;
                    for (int r = 0; r < rounds + 1; r++) {
                        long t0 = System.nanoTime();
                        oursBytes = LanceFileWriter_encode(batches, v);
                        long t1 = System.nanoTime();
                        Path f = dir.resolve("lc-" + v + "-" + r + ".lance");
                        try (LanceFileWriter w = LanceFileWriter.open(f.toString(), alloc, null, Optional.of(v), Map.of())) {
                            for (VectorSchemaRoot b : batches) {
                                w.write(b);
                            }
                        }
                        long t2 = System.nanoTime();
                        theirBytes = Files.size(f);
                        Files.delete(f);
                        if (r > 0) {
                            ours = Math.min(ours, t1 - t0);
                            theirs = Math.min(theirs, t2 - t1);
                        }
                    }
                    md.append(String.format("| %s | %d | %.0f | %.0f | %.0f | %.0f |%n", v, rows, ours / 1e6, theirs / 1e6,
                            oursBytes / 1e6 / (ours / 1e9), theirBytes / 1e6 / (theirs / 1e9)));
                }
            } finally {
                batches.forEach(VectorSchemaRoot::close);
            }
        }
        Path out = Path.of("target", "write-throughput.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, md.toString());
        System.out.println(md);
        assertThat(md.toString()).contains("| 2.2 |");
    }

    private static long LanceFileWriter_encode(List<VectorSchemaRoot> batches, String v) {
        return io.javelin.encoding.writer.LanceFileWriter.encode(Flux.fromIterable(batches),
                        batches.get(0).getSchema(), WriteOptions.of(LanceFileVersion.parse(v)))
                .map(ByteBuffer::remaining).reduce(0L, Long::sum).block();
    }
}
