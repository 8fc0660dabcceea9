package io.javelin.interop.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.cli.JavelinCli;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * {@code javelin export URI OUT.arrow} of every golden dataset (written by Lance 7.0.0: every type with
 * nulls in 2.2, every encoding in 2.0/2.1/2.2, deletions of both kinds at several versions) equals what
 * lance-core reads from the same dataset, row by row and column by column.
 */
class GoldenExportInteropTest {

    @TempDir
    Path dir;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void closeAllocator() {
        alloc.close();
    }

    @ParameterizedTest(name = "{0} v{1}")
    @CsvSource({"types_v2_2, 0", "encodings_v2_0, 0", "encodings_v2_1, 0", "encodings_v2_2, 0",
            "versions_deletes, 0", "versions_deletes, 1", "versions_deletes, 3"})
    void exportEqualsLanceCoresRead(String name, long version) throws Exception {
        Path ds = copy(name);
        Path out = dir.resolve(name + "-" + version + ".arrow");
        List<String> args = new ArrayList<>(List.of("export", ds.toString(), out.toString()));
        if (version > 0) {
            args.addAll(List.of("--version", Long.toString(version)));
        }
        assertThat(JavelinCli.run(args.toArray(String[]::new))).isZero();
        // Lance returns blob columns as descriptors {position, size}; the export carries the bytes: compare sizes
        java.util.Set<String> blobs = new java.util.HashSet<>();
        try (org.lance.Dataset head = org.lance.Dataset.open(ds.toString(), alloc)) {
            for (var f : head.getSchema().getFields()) {
                if (f.getMetadata() != null && f.getMetadata().containsKey("lance-encoding:blob")
                        || f.getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Struct
                        && f.getChildren().stream().map(c -> c.getName()).toList().equals(List.of("position", "size"))) {
                    blobs.add(f.getName());
                }
            }
        }
        List<String> ours = new ArrayList<>();
        List<String> columns;
        try (var ch = Files.newByteChannel(out); ArrowFileReader r = new ArrowFileReader(ch, alloc)) {
            columns = r.getVectorSchemaRoot().getSchema().getFields().stream().map(f -> f.getName()).toList();
            while (r.loadNextBatch()) {
                ours.addAll(rows(r.getVectorSchemaRoot(), blobs));
            }
        }
        List<String> theirs = new ArrayList<>();
        try (org.lance.Dataset head = org.lance.Dataset.open(ds.toString(), alloc);
             org.lance.Dataset lance = version > 0 ? head.checkoutVersion(version) : null) {
            org.lance.Dataset at = lance == null ? head : lance;
            assertThat(at.getSchema().getFields().stream().map(f -> f.getName()).toList()).isEqualTo(columns);
            try (LanceScanner s = at.newScan(new ScanOptions.Builder().batchSize(1024).build());
                 ArrowReader r = s.scanBatches()) {
                while (r.loadNextBatch()) {
                    theirs.addAll(rows(r.getVectorSchemaRoot(), blobs));
                }
            }
        }
        assertThat(ours).hasSameSizeAs(theirs).isNotEmpty();
        for (int i = 0; i < ours.size(); i++) {
            assertThat(ours.get(i)).as("%s v%d row %d", name, version, i).isEqualTo(theirs.get(i));
        }
    }

    static List<String> rows(VectorSchemaRoot r, java.util.Set<String> blobs) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < r.getRowCount(); i++) {
            StringBuilder sb = new StringBuilder();
            for (FieldVector v : r.getFieldVectors()) {
                sb.append(cell(v, i, blobs.contains(v.getName()))).append('|');
            }
            out.add(sb.toString());
        }
        return out;
    }

    static String cell(FieldVector v, int i, boolean blob) {
        Object o = v.getObject(i);
        if (blob && o != null) {
            if (o instanceof byte[] b) {
                return "blob of " + b.length;
            }
            if (o instanceof java.util.Map<?, ?> m) {
                // a zero-size descriptor at a non-zero position is a null (Lance 2.0 writes nulls as (1, 0))
                if (((Number) m.get("size")).longValue() == 0 && ((Number) m.get("position")).longValue() != 0) {
                    return "null";
                }
                return "blob of " + m.get("size");
            }
        }
        return o instanceof byte[] b ? java.util.Arrays.toString(b) : String.valueOf(o);
    }

    /** The fixture into a temp dir (a test must not write into its resources). */
    Path copy(String name) throws IOException, URISyntaxException {
        return copy(name, dir);
    }

    static Path copy(String name, Path dir) throws IOException, URISyntaxException {
        Path src = Path.of(GoldenExportInteropTest.class.getResource("/golden/" + name).toURI());
        Path dst = dir.resolve(name);
        try (Stream<Path> all = Files.walk(src)) {
            for (Path p : (Iterable<Path>) all::iterator) {
                Path t = dst.resolve(src.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return dst;
    }
}
