package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.arrow.DirectAssembler;
import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.io.SharedMemory;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;

/**
 * Scan batches built without copying over pages decoded into native memory ({@link DirectPage}): same rows
 * as written for batches inside one page and batches straddling pages, and the pages' memory outlives the
 * scan exactly as long as a batch still holds it.
 */
class DirectPageScanTest {

    @TempDir
    Path dir;

    static final int DIM = 64;
    static final Field ID = new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null);
    static final Field S = new Field("s", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
    static final Field VEC = new Field("vec", FieldType.notNullable(new ArrowType.FixedSizeList(DIM)),
            List.of(new Field("item", FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)));
    static final Schema SCHEMA = new Schema(List.of(ID, S, VEC));

    static String str(long i) {
        return "row-" + Long.toString(i * 7919, 36) + "-".repeat((int) (i % 5));
    }

    static float item(long row, int k) {
        return row * 0.5f + k;
    }

    static VectorSchemaRoot batch(BufferAllocator a, long start, int n) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        r.allocateNew();
        BigIntVector id = (BigIntVector) r.getVector("id");
        VarCharVector s = (VarCharVector) r.getVector("s");
        FixedSizeListVector vec = (FixedSizeListVector) r.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        for (int i = 0; i < n; i++) {
            id.setSafe(i, start + i);
            s.setSafe(i, str(start + i).getBytes(StandardCharsets.UTF_8));
            vec.setNotNull(i);
            for (int k = 0; k < DIM; k++) {
                items.setSafe(i * DIM + k, item(start + i, k));
            }
        }
        items.setValueCount(n * DIM);
        r.setRowCount(n);
        return r;
    }

    static void check(VectorSchemaRoot root, long[] rows) {
        assertThat(root.getRowCount()).isEqualTo(rows.length);
        BigIntVector id = (BigIntVector) root.getVector("id");
        VarCharVector s = (VarCharVector) root.getVector("s");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        for (int i = 0; i < rows.length; i++) {
            assertThat(id.get(i)).isEqualTo(rows[i]);
            assertThat(s.getObject(i).toString()).isEqualTo(str(rows[i]));
            assertThat(vec.isNull(i)).isFalse();
            for (int k = 0; k < DIM; k += 13) {
                assertThat(items.get(i * DIM + k)).isEqualTo(item(rows[i], k));
            }
        }
    }

    @Test
    void scansAndTakesOverDirectPagesReturnTheWrittenRowsAndReleaseEverything() throws Exception {
        int total = 6000;
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 6).concatMap(b -> reactor.core.publisher.Mono.using(
                    () -> batch(a, b * 1000L, 1000), reactor.core.publisher.Mono::just, VectorSchemaRoot::close, false), 1);
            LanceFileWriter.write(in, SCHEMA, store, "d.lance", WriteOptions.of(LanceFileVersion.V2_1).withPageSize(64 * 1024))
                    .block(Duration.ofMinutes(1));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "d.lance")).block()) {
                // several pages per column, so some batches straddle pages (general path) and most do not (direct)
                assertThat(r.metadata().columns().get(2).getPagesCount()).isGreaterThan(3);
                for (int bs : new int[] {97, 1024, total}) {
                    List<VectorSchemaRoot> kept = new ArrayList<>();
                    long[] next = {0};
                    r.scan(LanceFileReader.ScanOptions.all(bs), a).doOnNext(root -> {
                        long[] rows = new long[root.getRowCount()];
                        for (int i = 0; i < rows.length; i++) {
                            rows[i] = next[0] + i;
                        }
                        next[0] += rows.length;
                        check(root, rows);
                        kept.add(root); // the scan is over (and its page cache gone) before these are read again
                    }).blockLast();
                    assertThat(next[0]).isEqualTo(total);
                    long start = 0;
                    for (VectorSchemaRoot root : kept) {
                        long[] rows = new long[root.getRowCount()];
                        for (int i = 0; i < rows.length; i++) {
                            rows[i] = start + i;
                        }
                        start += rows.length;
                        check(root, rows);
                        root.close();
                    }
                }
                long[] idx = new SplittableRandom(3).longs(300, 0, total).sorted().distinct().toArray();
                try (VectorSchemaRoot t = r.take(idx, null, a).block()) {
                    check(t, idx);
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    @Test
    void wrappedBuffersKeepThePageMemoryAliveAfterThePageIsClosed() {
        Buffer mem = Buffer.allocateUninitialized(4 << 20, "test");
        for (int i = 0; i < 1 << 20; i++) {
            mem.segment().setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, i);
        }
        SharedMemory shared = new SharedMemory(mem);
        Field f = new Field("x", FieldType.notNullable(new ArrowType.Int(32, true)), null);
        try (BufferAllocator a = new RootAllocator()) {
            DirectPage page = DirectPage.fixed(1 << 20, 32, 1, mem.segment(), shared);
            shared.release(); // the page holds the only reference now
            FieldVector v = DirectAssembler.toVector(f, page, 1000, 3000, a);
            assertThat(v).isNotNull();
            page.close();
            page.close(); // idempotent
            assertThat(mem.isReleased()).isFalse();
            org.apache.arrow.vector.IntVector iv = (org.apache.arrow.vector.IntVector) v;
            assertThat(iv.getValueCount()).isEqualTo(2000);
            assertThat(iv.getNullCount()).isZero();
            assertThat(iv.get(0)).isEqualTo(1000);
            assertThat(iv.get(1999)).isEqualTo(2999);
            v.close();
            assertThat(mem.isReleased()).isTrue();
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
}
