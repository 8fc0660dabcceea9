package io.javelin.interop.filter;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code _row_created_at_version} and {@code _row_last_updated_at_version} in filters select the same rows in
 * both engines, over a lance-core history (create, append) and a Javelin update read by lance-core.
 */
class RowVersionInteropTest {

    static final List<String> FILTERS = List.of("_row_created_at_version = 1", "_row_created_at_version = 2",
            "_row_created_at_version > 1 AND i > 0", "_row_last_updated_at_version = 3", "_row_last_updated_at_version < 3",
            "_row_last_updated_at_version > _row_created_at_version", "_row_created_at_version = 2 OR _rowid < 5");

    @TempDir
    Path dir;

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {false, true})
    void versionColumnsAgreeWithLanceCore(boolean stable) throws Exception {
        try (BufferAllocator alloc = new RootAllocator()) {
            String uri = dir.resolve("v.lance").toString();
            FilterData.writeWithLance(alloc, uri, 600, 1L, 250, org.lance.WriteParams.WriteMode.CREATE, stable);
            appendWithLance(alloc, uri);
            if (!stable) {
                try (Dataset ds = Dataset.open(uri).block()) {
                    ds.update("id % 7 = 0", Map.of("i", "i + 1")).block();
                }
            }
            try (org.lance.Dataset lance = org.lance.Dataset.open(uri, alloc)) {
                FilterDifferentialInteropTest.lance = lance;
                try (Dataset javelin = Dataset.open(uri).block()) {
                    FilterDifferentialInteropTest.javelin = javelin;
                    FilterDifferentialInteropTest.alloc = alloc;
                    for (String f : FILTERS) {
                        var l = FilterDifferentialInteropTest.lanceRows(f);
                        var j = FilterDifferentialInteropTest.javelinRows(f);
                        assertThat(l).as(f).isInstanceOf(FilterDifferentialInteropTest.Outcome.Rows.class);
                        assertThat(j).as(f).isEqualTo(l);
                        System.out.println("row versions (stable row ids " + stable + "): " + f + " -> "
                                + ((FilterDifferentialInteropTest.Outcome.Rows) l).ids().size() + " rows");
                    }
                } finally {
                    FilterDifferentialInteropTest.javelin = null;
                    FilterDifferentialInteropTest.lance = null;
                    FilterDifferentialInteropTest.alloc = null;
                }
            }
        }
    }

    private static void appendWithLance(BufferAllocator alloc, String uri) throws Exception {
        FilterData.writeWithLance(alloc, uri, 300, 2L, 300, org.lance.WriteParams.WriteMode.APPEND, false);
    }
}
