package io.javelin.engine;

import static io.javelin.engine.DatasetTestSupport.collect;
import static io.javelin.engine.DatasetTestSupport.rows;
import static io.javelin.engine.DatasetTestSupport.schema;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.tag.Tag;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.scheduler.Schedulers;

/** Lance's options: max_bytes_per_file, tag metadata, tags on branch versions, update / delete by _rowid. */
class OptionsParityTest {

    @TempDir
    Path tmp;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    @Test
    void maxBytesPerFileClosesFilesBySize() throws Exception {
        String uri = tmp.resolve("bytes.lance").toString();
        long cap = 64 * 1024;
        try (Dataset ds = Dataset.write(uri, rows(alloc, 0, 20_000, 1000), schema(), WriteParams.of(WriteMode.CREATE)
                .withMaxBytesPerFile(cap)).block()) {
            assertThat(ds.count().block()).isEqualTo(20_000);
            assertThat(ds.fragments().size()).isGreaterThan(4);
            try (Dataset one = Dataset.write(tmp.resolve("one.lance").toString(), rows(alloc, 0, 20_000, 1000), schema(),
                    WriteParams.of(WriteMode.CREATE)).block()) {
                assertThat(one.fragments()).hasSize(1);
                assertThat(collect(ds.scanner().scan(alloc))).isEqualTo(collect(one.scanner().scan(alloc)));
            }
            for (var f : ds.fragments()) {
                // the cap is checked after each batch (as Lance does): a file holds at most one batch beyond it
                long size = Files.size(tmp.resolve("bytes.lance/data/" + f.fragment().getFiles(0).getPath()));
                assertThat(size).isLessThan(cap + 64 * 1024);
            }
        }
        assertThatThrownBy(() -> WriteParams.of(WriteMode.CREATE).withMaxBytesPerFile(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void tagMetadataAndTagsOnBranchVersions() {
        String uri = tmp.resolve("tags.lance").toString();
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 100, 100), schema(), WriteParams.of(WriteMode.CREATE)).block();
             Dataset v2 = v1.append(rows(alloc, 100, 10, 10), schema()).block()) {
            Tag t = v2.createTag("release", 1, Map.of("owner", "etl", "note", "first")).block();
            assertThat(t.metadata()).containsEntry("owner", "etl");
            v2.updateTag("release", 2).block();
            assertThat(v2.tags().block().get("release").metadata()).containsExactlyInAnyOrderEntriesOf(Map.of("owner", "etl", "note", "first"));
            try (Dataset b = v2.createBranch("dev").block(); Dataset b2 = b.append(rows(alloc, 500, 7, 7), schema()).block()) {
                Tag bt = v2.createTag("dev-head", "dev", b2.version(), Map.of("k", "v")).block();
                assertThat(bt.branch()).isEqualTo("dev");
                assertThat(bt.version()).isEqualTo(b2.version());
                try (Dataset viaTag = v2.checkout("dev-head").block(); Dataset opened = Dataset.open(uri, Map.of(), "dev-head").block()) {
                    assertThat(viaTag.count().block()).isEqualTo(117);
                    assertThat(opened.count().block()).isEqualTo(117);
                    assertThat(opened.version()).isEqualTo(b2.version());
                }
                try (Dataset main = v2.checkout("release").block()) {
                    assertThat(main.count().block()).isEqualTo(110);
                }
                assertThatThrownBy(() -> v2.createTag("x", "dev", 99, Map.of()).block()).isInstanceOf(DatasetException.class);
                assertThatThrownBy(() -> v2.createTag("y", "nobranch", 1, Map.of()).block()).isInstanceOf(TagException.class);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void updateAndDeleteByRowId(boolean stable) {
        String uri = tmp.resolve("rid-" + stable + ".lance").toString();
        try (Dataset v1 = Dataset.write(uri, rows(alloc, 0, 300, 100), schema(), WriteParams.of(WriteMode.CREATE)
                .withMaxRowsPerFile(100).withEnableStableRowIds(stable)).block();
             Dataset v2 = v1.delete("id < 5").block()) {
            Map<Long, Long> ids = rowIds(v2); // id → _rowid
            long[] doomed = {ids.get(10L), ids.get(150L), ids.get(299L), 1L << 40};
            try (Dataset v3 = v2.deleteRows(doomed).block()) {
                assertThat(v3.count().block()).isEqualTo(295 - 3);
                assertThat(rowIds(v3)).doesNotContainKeys(10L, 150L, 299L).containsKey(11L);
                UpdateResult u = v3.updateRows(new long[] {ids.get(20L), ids.get(250L)}, Map.of("name", "'changed'")).block();
                try (Dataset v4 = u.dataset()) {
                    assertThat(u.rowsUpdated()).isEqualTo(2);
                    List<List<String>> changed = collect(v4.scanner().columns("id").filter("name = 'changed'").scan(alloc));
                    assertThat(changed).containsExactlyInAnyOrder(List.of("20"), List.of("250"));
                    // the same through a filter on _rowid (Lance's form)
                    try (Dataset v5 = v4.delete("_rowid = " + rowIds(v4).get(30L)).block()) {
                        assertThat(rowIds(v5)).doesNotContainKey(30L).hasSize(292 - 1);
                        if (stable) { // updated rows kept their ids
                            assertThat(rowIds(v5).get(20L)).isEqualTo(ids.get(20L));
                        }
                    }
                }
            }
        }
    }

    private Map<Long, Long> rowIds(Dataset ds) {
        Map<Long, Long> out = new java.util.HashMap<>();
        for (VectorSchemaRoot b : ds.scanner().columns("id").withRowId(true).scan(alloc).publishOn(Schedulers.boundedElastic(), 1)
                .toIterable(1)) {
            try (b) {
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.put((Long) b.getVector("id").getObject(i), ((UInt8Vector) b.getVector("_rowid")).get(i));
                }
            }
        }
        return out;
    }
}
