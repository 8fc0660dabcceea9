package io.javelin.interop.writer;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.writer.TestBatches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.file.LanceFileWriter;

/**
 * Our file size against lance-core 7.0.0's for the same data, version and settings (issue 5: within
 * ±10%). Writes a markdown table to {@code target/file-sizes.md} (the 2026-11-29 table is in
 * docs/bench/history.md, "Lance file writer (issue 5)").
 */
class FileSizeComparisonTest {

    @TempDir
    Path dir;

    static final List<String> report = new ArrayList<>();

    static Schema benchShape() {
        return new Schema(List.of(
                TestBatches.f("id", new ArrowType.Int(64, true), false),
                TestBatches.f("dict_category", ArrowType.Utf8.INSTANCE, true),
                TestBatches.f("small_num", new ArrowType.Int(64, true), true),
                TestBatches.f("txt_text", ArrowType.Utf8.INSTANCE, true),
                TestBatches.f("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
                TestBatches.f("vec", new ArrowType.FixedSizeList(128), true,
                        TestBatches.f("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), false))));
    }

    @Test
    void goldenTypesAndBenchShape() throws Exception {
        int benchRows = Integer.getInteger("javelin.sizetest.rows", 200_000);
        StringBuilder md = new StringBuilder();
        md.append("| data | version | rows | javelin bytes | lance-core bytes | ratio |\n|---|---|---|---|---|---|\n");
        List<String> perColumn = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (String v : List.of("2.0", "2.1", "2.2")) {
            compare("golden types", TestBatches.goldenTypes(), v, 10, 1000, md, perColumn, failures);
            compare("bench shape", benchShape(), v, benchRows / 10_000, 10_000, md, perColumn, failures);
        }
        md.append("\nPer column where javelin and lance-core differ by more than 10% and 1 KiB:\n\n")
                .append("| data | version | column | javelin | lance-core |\n|---|---|---|---|---|\n");
        perColumn.forEach(md::append);
        Path out = Path.of("target", "file-sizes.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, md.toString(), StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        System.out.println(md);
        assertThat(failures).isEmpty();
    }

    void compare(String what, Schema schema, String version, int batches, int rows, StringBuilder md,
                 List<String> perColumn, List<String> failures) throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            String name = (what + "-" + version).replace(' ', '_');
            Path ours = LanceReadBack.write(dir, name + ".javelin.lance", schema, alloc, 7, batches, rows,
                    LanceReadBack.opts(version));
            Path theirs = dir.resolve(name + ".lance-core.lance");
            try (LanceFileWriter w = LanceFileWriter.open(theirs.toString(), alloc, null, Optional.of(version), Map.of())) {
                for (int b = 0; b < batches; b++) {
                    try (VectorSchemaRoot root = TestBatches.batch(schema, alloc, 7, (long) b * rows, rows)) {
                        w.write(root);
                    }
                }
            }
            long a = Files.size(ours);
            long b = Files.size(theirs);
            double ratio = (double) a / b;
            md.append(String.format("| %s | %s | %d | %,d | %,d | %.3f |%n", what, version, (long) batches * rows, a, b, ratio));
            if (Math.abs(ratio - 1) > 0.10) {
                failures.add(what + " " + version + ": " + a + " vs " + b);
            }
            List<ColumnMetadata> ca = FileInspect.columns(ours);
            List<ColumnMetadata> cb = FileInspect.columns(theirs);
            for (int c = 0; c < Math.min(ca.size(), cb.size()); c++) {
                long sa = bytes(ca.get(c));
                long sb = bytes(cb.get(c));
                if (Math.abs(sa - sb) > 1024 && Math.abs((double) sa / Math.max(1, sb) - 1) > 0.10) {
                    perColumn.add(String.format("| %s | %s | %d | %,d | %,d |%n", what, version, c, sa, sb));
                }
            }
        }
    }

    static long bytes(ColumnMetadata cm) {
        long s = 0;
        for (ColumnMetadata.Page p : cm.getPagesList()) {
            for (long x : p.getBufferSizesList()) {
                s += x;
            }
        }
        return s;
    }
}
