package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TimeStampMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;

/** Small fidelity gaps of issue #21 item 7: JSON of zone-less timestamps, dropped concurrent errors, info's storage line. */
class CliFidelityTest {

    @TempDir
    Path tmp;

    @Test
    void jsonScanPrintsTimestampsWithoutTimeZone() throws Exception {
        Schema schema = new Schema(List.of(new Field("ts", FieldType.nullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null)), null)));
        String uri = tmp.resolve("ts.lance").toString();
        try (BufferAllocator alloc = new RootAllocator()) {
            VectorSchemaRoot root = VectorSchemaRoot.create(schema, alloc);
            TimeStampMicroVector ts = (TimeStampMicroVector) root.getVector("ts");
            ts.allocateNew(2);
            ts.set(0, 1_700_000_000_123_456L);
            ts.setNull(1);
            root.setRowCount(2);
            Dataset.write(uri, Flux.just(root), schema, WriteParams.of(WriteMode.CREATE)).block().close();
        }
        var r = DatasetCliTest.run("scan", uri, "--format", "json");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines().toList()).containsExactly("{\"ts\":\"2023-11-14T22:13:20.123456\"}", "{\"ts\":null}");
    }

    @Test
    void concurrentFileFailuresAreSuppressedIntoTheReportedErrorNotDropped() throws Exception {
        Path ds = DatasetCliTest.golden(tmp);
        try (Dataset d = Dataset.open(ds.toString()).block()) {
            assertThat(d.fragments()).hasSizeGreaterThan(1);
        }
        try (Stream<Path> files = Files.list(ds.resolve("data"))) {
            for (Path f : files.toList()) {
                try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                    ch.write(java.nio.ByteBuffer.wrap(new byte[40]), ch.size() - 40); // every footer gone
                }
            }
        }
        List<Throwable> dropped = new CopyOnWriteArrayList<>();
        Hooks.onErrorDropped(dropped::add);
        try (Dataset d = Dataset.open(ds.toString()).block(); BufferAllocator alloc = new RootAllocator()) {
            assertThatThrownBy(() -> d.scanner().fragmentReadahead(8).scan(alloc).doOnNext(VectorSchemaRoot::close).blockLast())
                    .isInstanceOf(RuntimeException.class);
            Thread.sleep(200); // let the other fragments' failures arrive
        } finally {
            Hooks.resetOnErrorDropped();
        }
        assertThat(dropped).as("errors Reactor would log as dropped").isEmpty();
        var r = DatasetCliTest.run("export", ds.toString(), tmp.resolve("x.arrow").toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).doesNotContain("onErrorDropped").startsWith("error: ");
    }

    @Test
    void infoInfersTheDataStorageVersionWhenTheManifestHasNone() {
        FragmentInfo v20 = FragmentInfo.of(DataFragment.newBuilder().setPhysicalRows(1)
                .addFiles(DataFile.newBuilder().setPath("a.lance").setFileMajorVersion(0).setFileMinorVersion(3)).build());
        FragmentInfo legacy = FragmentInfo.of(DataFragment.newBuilder().setPhysicalRows(1)
                .addFiles(DataFile.newBuilder().setPath("a.lance")).build());
        assertThat(DatasetCommands.storage("2.1", List.of(v20))).isEqualTo("2.1");
        assertThat(DatasetCommands.storage("", List.of(v20))).startsWith("2.0 (not recorded");
        assertThat(DatasetCommands.storage("", List.of(legacy))).startsWith("legacy (0.1)");
        assertThat(DatasetCommands.storage("", List.of())).isEqualTo("legacy (not recorded in the manifest)");
    }
}
