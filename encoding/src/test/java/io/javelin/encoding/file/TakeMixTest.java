package io.javelin.encoding.file;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.io.ObjectStoreSource;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.objectstore.local.LocalObjectStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Takes that mix pages read whole (all-null constant pages) with partially read mini-block and full-zip
 * pages, in 2.1 and 2.2 files, many at once: every take completes (bounded wait) with the written rows.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class TakeMixTest {

    static final int ROUNDS = Integer.getInteger("javelin.test.takeMixRounds", 30);

    @TempDir
    Path dir;

    static final Schema SCHEMA = new Schema(List.of(
            new Field("z", FieldType.nullable(new ArrowType.Int(32, true)), null), // all null: a constant page
            new Field("i", FieldType.nullable(new ArrowType.Int(32, true)), null),
            new Field("l", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("d", FieldType.nullable(new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.DOUBLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("c", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            NativeDecodeScanTest.SCHEMA.getFields().get(5),
            NativeDecodeScanTest.SCHEMA.getFields().get(6)));

    static VectorSchemaRoot batch(BufferAllocator a, long start, int n) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, a);
        try (VectorSchemaRoot src = NativeDecodeScanTest.batch(a, start, n)) {
            ((IntVector) r.getVector(0)).allocateNew(n);
            r.getVector(0).setValueCount(n);
            for (int c = 0; c < 7; c++) {
                src.getVector(c).makeTransferPair(r.getVector(c + 1)).transfer();
            }
        }
        r.setRowCount(n);
        return r;
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({"V2_1,false", "V2_2,false", "V2_1,true", "V2_2,true"})
    void takesOverWholeAndPartialPagesComplete(String v, boolean nativeDecode) throws Exception {
        run(LanceFileVersion.valueOf(v), DecodeOptions.DEFAULT.withNativeDecode(nativeDecode));
    }

    /**
     * Constant (all-null) and small mini-block pages come whole with the take's first round, large pages' chunk
     * tables with them: a cold take is two requests, a repeated one only the large pages' chunks, and a take of
     * only small/constant pages is one request, then none.
     */
    @ParameterizedTest
    @ValueSource(strings = {"V2_1", "V2_2"})
    void smallAndConstantPagesComeWithTheFirstRound(String v) throws Exception {
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 3).concatMap(b -> Mono.using(() -> batch(a, b * 1000L, 1000), Mono::just,
                    VectorSchemaRoot::close, false), 1);
            LanceFileWriter.write(in, SCHEMA, store, "c.lance", WriteOptions.of(LanceFileVersion.valueOf(v))).block(Duration.ofMinutes(1));
            byte[] bytes = java.nio.file.Files.readAllBytes(dir.resolve("c.lance"));
            ListTakeTest.Counting src = new ListTakeTest.Counting(bytes);
            try (LanceFileReader r = LanceFileReader.open(src).block()) {
                var md = r.metadata();
                assertThat(PageEncodings.pageLayout("c", 0, md.columns().get(0).getPages(0).getEncoding()).hasConstantLayout()).isTrue();
                long sBytes = md.columns().get(4).getPages(0).getBufferSizesList().stream().mapToLong(Long::longValue).sum();
                assertThat(sBytes).as("s pages are large").isGreaterThan(ListTakeTest.SMALL_PAGE_BYTES);
                long[] idx = {2999, 5, 1500, 5};
                int opened = src.requests.size();
                try (VectorSchemaRoot t = r.take(idx, List.of("z", "s"), a).block(Duration.ofSeconds(30))) {
                    assertThat(t.getRowCount()).isEqualTo(4);
                    assertThat(t.getVector("z").getNullCount()).isEqualTo(4);
                    assertThat(t.getVector("s").getObject(1).toString()).isEqualTo(NativeDecodeScanTest.s(5));
                }
                assertThat(src.requests.size() - opened).as("first round (with the constant page) + chunks").isEqualTo(2);
                int before = src.requests.size();
                r.take(idx, List.of("z", "s"), a).block(Duration.ofSeconds(30)).close();
                assertThat(src.requests.size() - before).as("repeated: only the chunks").isEqualTo(1);
                before = src.requests.size();
                r.take(idx, List.of("z"), a).block(Duration.ofSeconds(30)).close();
                assertThat(src.requests.size() - before).as("constant page cached").isZero();
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    /**
     * A second round above the source's {@code maxSparseRequest()} (1 MiB by default; 300 rows of 8 KiB values)
     * goes out as several requests read concurrently; the rows come back in order, and a take cancelled while they are in flight
     * releases every buffer.
     */
    @org.junit.jupiter.api.Test
    void largeSecondRoundsSplitIntoSeveralRequests() throws Exception {
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
                new Field("blob", new FieldType(false, ArrowType.Binary.INSTANCE, null, NativeDecodeScanTest.FULL_ZIP), null)));
        int total = 2000;
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 4).concatMap(b -> Mono.using(() -> {
                VectorSchemaRoot r = VectorSchemaRoot.create(schema, a);
                r.allocateNew();
                for (int k = 0; k < 500; k++) {
                    long row = b * 500L + k;
                    ((org.apache.arrow.vector.BigIntVector) r.getVector(0)).setSafe(k, row);
                    byte[] v = new byte[8192];
                    new SplittableRandom(row).nextBytes(v);
                    ((org.apache.arrow.vector.VarBinaryVector) r.getVector(1)).setSafe(k, v);
                }
                r.setRowCount(500);
                return r;
            }, Mono::just, VectorSchemaRoot::close, false), 1);
            LanceFileWriter.write(in, schema, store, "big.lance", WriteOptions.of(LanceFileVersion.V2_1)).block(Duration.ofMinutes(1));
            byte[] bytes = java.nio.file.Files.readAllBytes(dir.resolve("big.lance"));
            ListTakeTest.Counting src = new ListTakeTest.Counting(bytes);
            long[] idx = new SplittableRandom(3).longs(300, 0, total).toArray();
            try (LanceFileReader r = LanceFileReader.open(src).block()) {
                r.take(idx, null, a).block(Duration.ofSeconds(30)).close(); // first rounds cached
                int before = src.requests.size();
                try (VectorSchemaRoot t = r.take(idx, null, a).block(Duration.ofSeconds(30))) {
                    for (int k = 0; k < idx.length; k++) {
                        byte[] want = new byte[8192];
                        new SplittableRandom(idx[k]).nextBytes(want);
                        assertThat(((org.apache.arrow.vector.BigIntVector) t.getVector(0)).get(k)).isEqualTo(idx[k]);
                        assertThat(((org.apache.arrow.vector.VarBinaryVector) t.getVector(1)).get(k)).isEqualTo(want);
                    }
                }
                assertThat(src.requests.size() - before).as("a 2.4 MB second round").isGreaterThanOrEqualTo(3);
            }
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "big.lance")).block()) {
                // A lambda subscriber disposed while the result is on its way drops it (Reactor's onNextDropped):
                // a subscriber that disposes must close what it is handed after that, here through the hook.
                reactor.util.context.Context closeDropped = reactor.util.context.Context.of("reactor.onNextDropped.local",
                        (java.util.function.Consumer<Object>) o -> ((VectorSchemaRoot) o).close());
                for (int i = 0; i < 20; i++) {
                    reactor.core.Disposable d = r.take(idx, null, a).subscribe(VectorSchemaRoot::close, e -> { }, null, closeDropped);
                    Thread.sleep(i % 4);
                    d.dispose();
                }
                r.take(idx, null, a).block(Duration.ofSeconds(30)).close();
            }
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
            while (a.getAllocatedMemory() != 0 && System.nanoTime() < deadline) {
                Thread.sleep(10); // cancelled decodes still running let go of their vectors when they finish
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }

    private void run(LanceFileVersion version, DecodeOptions decode) throws Exception {
        int total = 9000;
        try (BufferAllocator a = new RootAllocator(); LocalObjectStore store = new LocalObjectStore(dir, 2)) {
            Flux<VectorSchemaRoot> in = Flux.range(0, 9).concatMap(b -> Mono.using(() -> batch(a, b * 1000L, 1000), Mono::just,
                    VectorSchemaRoot::close, false), 1);
            LanceFileWriter.write(in, SCHEMA, store, "m.lance", WriteOptions.of(version).withPageSize(16 * 1024))
                    .block(Duration.ofMinutes(1));
            try (LanceFileReader r = LanceFileReader.open(new ObjectStoreSource(store, "m.lance"), decode).block()) {
                assertThat(r.metadata().columns().get(0).getPages(0).getEncoding().toString()).isNotEmpty();
                SplittableRandom rnd = new SplittableRandom(7);
                for (int round = 0; round < ROUNDS; round++) {
                    long[][] takes = new long[8][];
                    for (int t = 0; t < takes.length; t++) {
                        takes[t] = rnd.longs(1 + rnd.nextInt(50), 0, total).toArray();
                    }
                    List<Integer> ok = Flux.range(0, takes.length)
                            .flatMap(t -> r.take(takes[t], null, a).map(root -> {
                                try (root) {
                                    for (int k = 0; k < takes[t].length; k++) {
                                        assertThat(root.getVector(0).isNull(k)).isTrue();
                                        try (VectorSchemaRoot one = root.slice(k, 1);
                                             VectorSchemaRoot rest = new VectorSchemaRoot(one.getFieldVectors().subList(1, 8))) {
                                            NativeDecodeScanTest.check(rest, takes[t][k]);
                                        }
                                    }
                                    return t;
                                }
                            }), 4)
                            .collectList()
                            .block(Duration.ofSeconds(30));
                    assertThat(ok).hasSize(takes.length);
                }
            }
            assertThat(a.getAllocatedMemory()).isZero();
        }
    }
}
