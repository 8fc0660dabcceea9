package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.stream.Stream;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.compression.CompressionUtil.CodecType;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Arrow IPC in and out of the CLI: both forms, LZ4_FRAME and ZSTD bodies, and only complete output files. */
class ArrowIpcCliTest {

    @TempDir
    Path tmp;

    static DatasetCliTest.Result run(String... args) {
        return DatasetCliTest.run(args);
    }

    /** The golden dataset's latest version exported uncompressed: the reference rows. */
    Path reference() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        Path out = tmp.resolve("ref.arrow");
        assertThat(run("export", ds.toString(), out.toString()).exit()).isZero();
        return out;
    }

    /** {@code src} rewritten as an IPC file or stream with {@code codec} body compression (as pyarrow writes them). */
    static Path recompress(Path src, Path dst, CodecType codec, boolean stream) throws Exception {
        try (BufferAllocator a = new RootAllocator(); FileChannel in = FileChannel.open(src);
             ArrowFileReader r = new ArrowFileReader(in, a); OutputStream os = Files.newOutputStream(dst)) {
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            var ch = java.nio.channels.Channels.newChannel(os);
            var factory = codec == CodecType.NO_COMPRESSION ? org.apache.arrow.vector.compression.NoCompressionCodec.Factory.INSTANCE
                    : CommonsCompressionFactory.INSTANCE;
            try (ArrowWriter w = stream
                    ? new ArrowStreamWriter(root, null, ch, IpcOption.DEFAULT, factory, codec)
                    : new ArrowFileWriter(root, null, ch, null, IpcOption.DEFAULT, factory, codec)) {
                w.start();
                while (r.loadNextBatch()) {
                    w.writeBatch();
                }
                w.end();
            }
        }
        return dst;
    }

    @ParameterizedTest
    @CsvSource({"LZ4_FRAME, false", "LZ4_FRAME, true", "ZSTD, false", "ZSTD, true", "NO_COMPRESSION, true"})
    void importAndFileWriteAcceptCompressedFilesAndStreams(CodecType codec, boolean stream) throws Exception {
        Path ref = reference();
        Path in = recompress(ref, tmp.resolve("in.ipc"), codec, stream);
        Path ds = tmp.resolve("imported.lance");
        var imported = run("import", in.toString(), ds.toString());
        assertThat(imported.exit()).as(imported.err()).isZero();
        Path back = tmp.resolve("back.arrow");
        assertThat(run("export", ds.toString(), back.toString()).exit()).isZero();
        assertThat(DatasetCliTest.checksum(back).columns()).isEqualTo(DatasetCliTest.checksum(ref).columns());

        Path file = tmp.resolve("one.lance");
        var written = run("file", "write", in.toString(), file.toString());
        assertThat(written.exit()).as(written.err()).isZero();
        Path fileBack = tmp.resolve("file-back.arrow");
        assertThat(run("file", "export", file.toString(), fileBack.toString()).exit()).isZero();
        assertThat(DatasetCliTest.checksum(fileBack).columns()).isEqualTo(DatasetCliTest.checksum(ref).columns());
    }

    @ParameterizedTest
    @ValueSource(strings = {"LZ4_FRAME", "ZSTD"})
    void mergeInsertAcceptsCompressedInput(CodecType codec) throws Exception {
        Path ref = reference();
        Path in = recompress(ref, tmp.resolve("in.ipc"), codec, true);
        Path ds = tmp.resolve("versions_deletes");
        var r = run("merge-insert", ds.toString(), in.toString(), "--on", "id");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("inserted 0, updated 9450, deleted 0 rows");
    }

    @ParameterizedTest
    @CsvSource({"zstd, ZSTD", "lz4, LZ4_FRAME"})
    void exportWritesCompressedIpcOnRequest(String option, CodecType codec) throws Exception {
        Path ref = reference();
        Path out = tmp.resolve("c.arrow");
        var r = run("export", DatasetCliTest.golden(tmp.resolve("again")).toString(), out.toString(), "--compression", option);
        assertThat(r.exit()).as(r.err()).isZero();
        // the bodies really are compressed: the record batches declare the codec, and the file is smaller
        try (BufferAllocator a = new RootAllocator(); FileChannel ch = FileChannel.open(out);
             var reader = new org.apache.arrow.vector.ipc.message.MessageChannelReader(
                     new org.apache.arrow.vector.ipc.ReadChannel(ch.position(8)), a)) {
            org.apache.arrow.vector.ipc.message.MessageResult m;
            int batches = 0;
            while ((m = reader.readNext()) != null) {
                if (m.getMessage().headerType() == org.apache.arrow.flatbuf.MessageHeader.RecordBatch) {
                    var rb = (org.apache.arrow.flatbuf.RecordBatch) m.getMessage().header(new org.apache.arrow.flatbuf.RecordBatch());
                    assertThat(rb.compression()).isNotNull();
                    assertThat(rb.compression().codec()).isEqualTo(codec.getType());
                    batches++;
                }
                if (m.getBodyBuffer() != null) {
                    m.getBodyBuffer().close();
                }
            }
            assertThat(batches).isPositive();
        }
        assertThat(Files.size(out)).isLessThan(Files.size(ref));
        long rows = 0;
        try (BufferAllocator a = new RootAllocator(); FileChannel ch = FileChannel.open(out);
             ArrowFileReader c = new ArrowFileReader(ch, a, CommonsCompressionFactory.INSTANCE);
             FileChannel rch = FileChannel.open(ref); ArrowFileReader u = new ArrowFileReader(rch, a)) {
            while (c.loadNextBatch()) {
                assertThat(u.loadNextBatch()).isTrue();
                assertThat(c.getVectorSchemaRoot().contentToTSVString()).isEqualTo(u.getVectorSchemaRoot().contentToTSVString());
                rows += c.getVectorSchemaRoot().getRowCount();
            }
        }
        assertThat(rows).isEqualTo(9450);
    }

    @ParameterizedTest
    @ValueSource(strings = {"LZ4_FRAME", "ZSTD"})
    void addColumnsAcceptsACompressedStream(CodecType codec) throws Exception {
        Path ref = reference();
        Path in = tmp.resolve("twice.ipc");
        Schema schema = new Schema(List.of(new Field("twice", FieldType.nullable(new ArrowType.Int(64, true)), null)));
        try (BufferAllocator a = new RootAllocator(); FileChannel rch = FileChannel.open(ref); ArrowFileReader r = new ArrowFileReader(rch, a);
             VectorSchemaRoot out = VectorSchemaRoot.create(schema, a); OutputStream os = Files.newOutputStream(in);
             ArrowStreamWriter w = new ArrowStreamWriter(out, null, java.nio.channels.Channels.newChannel(os), IpcOption.DEFAULT,
                     CommonsCompressionFactory.INSTANCE, codec)) {
            w.start();
            while (r.loadNextBatch()) {
                BigIntVector id = (BigIntVector) r.getVectorSchemaRoot().getVector("id");
                BigIntVector twice = (BigIntVector) out.getVector("twice");
                twice.allocateNew(id.getValueCount());
                for (int i = 0; i < id.getValueCount(); i++) {
                    twice.set(i, id.get(i) * 2);
                }
                out.setRowCount(id.getValueCount());
                w.writeBatch();
            }
            w.end();
        }
        Path ds = tmp.resolve("versions_deletes");
        var r = run("add-columns", ds.toString(), in.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("added columns [twice]");
        var scan = run("scan", ds.toString(), "--columns", "id,twice", "--format", "csv");
        assertThat(scan.exit()).as(scan.err()).isZero();
        List<String> lines = scan.out().lines().toList();
        assertThat(lines).hasSize(9451);
        for (String line : lines.subList(1, lines.size())) {
            String[] cells = line.split(",");
            assertThat(Long.parseLong(cells[1])).isEqualTo(2 * Long.parseLong(cells[0]));
        }
    }

    @Test
    void importOfANonArrowFileIsATypedError() throws Exception {
        Path junk = Files.writeString(tmp.resolve("junk.arrow"), "not arrow at all");
        var r = run("import", junk.toString(), tmp.resolve("x.lance").toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("is not an Arrow IPC file or stream");
    }

    @ParameterizedTest
    @ValueSource(strings = {"export", "scan-arrow", "scan-csv"})
    void aFailedExportLeavesNoOutputFile(String how) throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        String last;
        try (Dataset d = Dataset.open(ds.toString()).block()) {
            var frags = d.fragments();
            last = frags.get(frags.size() - 1).fragment().getFiles(0).getPath();
        }
        // the last fragment's data file is damaged: the export fails after (or before) the first rows are out
        Path data = ds.resolve("data").resolve(last);
        try (FileChannel ch = FileChannel.open(data, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[64]), ch.size() - 64);
        }
        Path out = tmp.resolve("out").resolve("rows.out");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "previous content");
        var r = switch (how) {
            case "export" -> run("export", ds.toString(), out.toString());
            case "scan-arrow" -> run("scan", ds.toString(), "--format", "arrow", "-o", out.toString());
            default -> run("scan", ds.toString(), "--format", "csv", "-o", out.toString());
        };
        assertThat(r.exit()).as(r.out()).isEqualTo(1);
        assertThat(Files.readString(out)).as("the old file is untouched").isEqualTo("previous content");
        try (Stream<Path> left = Files.list(out.getParent())) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("rows.out");
        }
        Files.delete(out);
        r = run("export", ds.toString(), out.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(out).doesNotExist();
    }
}
