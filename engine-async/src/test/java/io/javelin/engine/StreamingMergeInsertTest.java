package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Streaming merge-insert: a source far larger than the memory budget is joined through spill partitions
 * and lands exactly as a ledger says, with the merge's allocator peak bounded; small random merges agree
 * with a ledger in memory and spilled, with partial-schema sources and Lance's NULL key semantics.
 */
class StreamingMergeInsertTest {

    @TempDir
    Path tmp;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("payload", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    /** The payload of a row is a function of its key and value, so the ledger need not keep it. */
    static String payload(long id, long v, int width) {
        StringBuilder sb = new StringBuilder(width);
        sb.append(id).append(':').append(v).append(':');
        long x = id * 0x9E3779B97F4A7C15L + v;
        while (sb.length() < width) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sb.append((char) ('a' + (int) ((x >>> 33) % 26)));
        }
        return sb.toString();
    }

    /** A batch of (id, v, payload); null ids where {@code ids[i]} is null; {@code withPayload=false}: (id, v) only. */
    static VectorSchemaRoot batch(BufferAllocator a, Long[] ids, long[] vs, int width, boolean withPayload) {
        List<Field> fields = withPayload ? SCHEMA.getFields() : SCHEMA.getFields().subList(0, 2);
        VectorSchemaRoot r = VectorSchemaRoot.create(new Schema(fields), a);
        r.allocateNew();
        BigIntVector id = (BigIntVector) r.getVector("id");
        BigIntVector v = (BigIntVector) r.getVector("v");
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] == null) {
                id.setNull(i);
            } else {
                id.setSafe(i, ids[i]);
            }
            v.setSafe(i, vs[i]);
            if (withPayload) {
                ((VarCharVector) r.getVector("payload")).setSafe(i,
                        payload(ids[i] == null ? -1 : ids[i], vs[i], width).getBytes(StandardCharsets.UTF_8));
            }
        }
        r.setRowCount(ids.length);
        for (FieldVector f : r.getFieldVectors()) {
            f.setValueCount(ids.length);
        }
        return r;
    }

    /** id → [v, payload hash], read back from the dataset (null ids under key Long.MIN_VALUE, counted). */
    static Map<Long, List<Object>> read(Dataset ds, BufferAllocator a) {
        Map<Long, List<Object>> out = new HashMap<>();
        int[] nullIds = {0};
        for (VectorSchemaRoot b : ds.scanner().scan(a).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                BigIntVector v = (BigIntVector) b.getVector("v");
                VarCharVector p = (VarCharVector) b.getVector("payload");
                for (int i = 0; i < b.getRowCount(); i++) {
                    long k = id.isNull(i) ? Long.MIN_VALUE + nullIds[0]++ : id.get(i);
                    List<Object> prev = out.put(k, java.util.Arrays.asList(v.isNull(i) ? null : v.get(i),
                            p.isNull(i) ? null : new String(p.get(i), StandardCharsets.UTF_8)));
                    assertThat(prev).as("duplicate id %s", k).isNull();
                }
            }
        }
        return out;
    }

    @Test
    void sourceFarLargerThanTheBudgetIsJoinedThroughSpillsWithBoundedMemory() {
        int width = 500;
        int tableRows = 100_000;
        int sourceRows = 220_000; // ~110 MiB of payload
        int batch = 2048;
        long budget = 8L << 20;
        String uri = tmp.resolve("big.lance").toString();
        Flux<VectorSchemaRoot> table = Flux.range(0, tableRows / batch + 1).map(b -> {
            int n = Math.min(batch, tableRows - b * batch);
            Long[] ids = new Long[n];
            long[] vs = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = 2L * (b * batch + i); // even ids 0 .. 2*tableRows
                vs[i] = 0;
            }
            return batch(alloc, ids, vs, 40, true);
        }).filter(r -> r.getRowCount() > 0 || closeEmpty(r));
        // source: ids 0, 1, 2, ... : the even ones below 2*tableRows update, the rest insert; v = 1
        Flux<VectorSchemaRoot> source = Flux.range(0, (sourceRows + batch - 1) / batch).map(b -> {
            int n = Math.min(batch, sourceRows - b * batch);
            Long[] ids = new Long[n];
            long[] vs = new long[n];
            for (int i = 0; i < n; i++) {
                ids[i] = (long) (b * batch + i) * 7919 % sourceRows; // a permutation: arrival order is not key order
                vs[i] = 1;
            }
            return batch(alloc, ids, vs, width, true);
        });
        Path spill = tmp.resolve("spill");
        try (BufferAllocator metered = new RootAllocator();
             Dataset v1 = Dataset.write(uri, table, SCHEMA, WriteParams.of(WriteMode.CREATE)).block()) {
            long t0 = System.nanoTime();
            MergeInsertResult res = v1.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .whenNotMatchedBySourceDelete("id >= 400000")
                    .execute(source, MergeInsertOptions.budget(budget).withFanOut(8).withSpillDirectory(spill).withAllocator(metered))
                    .block();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf("streaming merge-insert: %d source rows (~%d MiB) into %d rows, budget %d MiB: %d ms, allocator peak %.1f MiB%n",
                    sourceRows, (long) sourceRows * width >> 20, tableRows, budget >> 20, ms, metered.getPeakMemoryAllocation() / 1048576.0);
            try (Dataset v2 = res.dataset()) {
                // even ids < 220000 updated (110000 of them, of the table's 100000 even ids < 200000: 100000)
                long updated = tableRows; // every table id (even, < 200000) is in the source (ids < 220000)
                assertThat(res.updated()).isEqualTo(updated);
                assertThat(res.inserted()).isEqualTo(sourceRows - updated);
                assertThat(res.deleted()).isZero(); // no table id is >= 400000
                Map<Long, List<Object>> got = read(v2, alloc);
                assertThat(got).hasSize(sourceRows);
                for (long id = 0; id < sourceRows; id++) {
                    List<Object> row = got.get(id);
                    assertThat(row).as("id %d", id).isNotNull();
                    assertThat(row.get(0)).as("v of %d", id).isEqualTo(1L);
                    assertThat(row.get(1)).as("payload of %d", id).isEqualTo(payload(id, 1, width));
                }
                assertThat(v2.count().block()).isEqualTo(sourceRows);
            }
            // bounded: the join held at most half the budget of source rows plus partition buffers and batches
            assertThat(metered.getPeakMemoryAllocation()).isLessThanOrEqualTo(budget);
            assertThat(metered.getAllocatedMemory()).isZero();
        }
        assertThat(spill.toFile().list()).as("spill directory emptied").isEmpty();
    }

    private static boolean closeEmpty(VectorSchemaRoot r) {
        r.close();
        return false;
    }

    /** One random merge, checked against a ledger, in memory (large budget) or spilled (1 MiB, fan-out 2). */
    @Test
    void randomMergesAgreeWithALedgerInMemoryAndSpilled() throws Exception {
        for (boolean spilled : new boolean[] {false, true}) {
            Random rnd = new Random(spilled ? 7 : 11);
            String uri = tmp.resolve("rand-" + spilled + ".lance").toString();
            TreeMap<Long, Long> ledger = new TreeMap<>();
            List<Long> initial = new ArrayList<>();
            for (long id = 0; id < 3000; id += 1 + rnd.nextInt(3)) {
                initial.add(id);
                ledger.put(id, 0L);
            }
            Long[] ids0 = initial.toArray(Long[]::new);
            Dataset ds = Dataset.write(uri, Flux.just(1).map(x -> batch(alloc, ids0, new long[ids0.length], 30, true)), SCHEMA,
                    WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(700)).block();
            int width = 300; // 1 MiB budget: a few thousand rows spill
            for (int round = 1; round <= 6; round++) {
                long v = round;
                int mode = round % 3; // 0: upsert, 1: update only if source.v > target.v + delete by source, 2: insert only
                List<Long> src = new ArrayList<>();
                java.util.Set<Long> seen = new java.util.HashSet<>();
                for (int i = 0; i < 4000; i++) {
                    long id = rnd.nextInt(5000);
                    if (seen.add(id)) {
                        src.add(id);
                    }
                }
                MergeInsert m = ds.mergeInsert(List.of("id"));
                m = switch (mode) {
                    case 0 -> m.whenMatchedUpdateAll().whenNotMatchedInsertAll();
                    case 1 -> m.whenMatchedUpdateAll("source.v > target.v").whenNotMatchedDoNothing()
                            .whenNotMatchedBySourceDelete("id < 1000");
                    default -> m.whenMatchedDoNothing().whenNotMatchedInsertAll();
                };
                // ledger
                long ins = 0;
                long upd = 0;
                long del = 0;
                for (long id : src) {
                    Long old = ledger.get(id);
                    if (old != null && mode != 2 && v > old) {
                        ledger.put(id, v);
                        upd++;
                    } else if (old == null && mode != 1) {
                        ledger.put(id, v);
                        ins++;
                    }
                }
                if (mode == 1) {
                    for (var it = ledger.headMap(1000L).entrySet().iterator(); it.hasNext(); ) {
                        if (!seen.contains(it.next().getKey())) {
                            it.remove();
                            del++;
                        }
                    }
                }
                Flux<VectorSchemaRoot> source = Flux.fromIterable(chunks(src, 512)).map(c -> {
                    long[] vs = new long[c.size()];
                    java.util.Arrays.fill(vs, v);
                    return batch(alloc, c.toArray(Long[]::new), vs, width, true);
                });
                Path spillDir = tmp.resolve("spill-" + spilled + "-" + round);
                MergeInsertOptions opt = spilled ? MergeInsertOptions.budget(1 << 20).withFanOut(2).withSpillDirectory(spillDir)
                        : MergeInsertOptions.DEFAULTS;
                MergeInsertResult res = m.execute(source, opt).block();
                assertThat(new long[] {res.inserted(), res.updated(), res.deleted()}).as("round %d (%s)", round, spilled)
                        .containsExactly(ins, upd, del);
                ds.close();
                ds = res.dataset();
                Map<Long, List<Object>> got = read(ds, alloc);
                assertThat(got.keySet()).as("round %d", round).containsExactlyInAnyOrderElementsOf(ledger.keySet());
                for (var e : ledger.entrySet()) {
                    long id = e.getKey();
                    assertThat(got.get(id)).as("id %d round %d", id, round)
                            .containsExactly(e.getValue(), payload(id, e.getValue(), e.getValue() == 0 ? 30 : width));
                }
                if (spilled) {
                    assertThat(Files.list(spillDir).count()).isZero();
                }
            }
            ds.close();
        }
    }

    static <T> List<List<T>> chunks(List<T> all, int n) {
        List<List<T>> out = new ArrayList<>();
        for (int i = 0; i < all.size(); i += n) {
            out.add(all.subList(i, Math.min(all.size(), i + n)));
        }
        return out;
    }

    @Test
    void partialSchemaSourceUpdatesOnlyItsColumnsAndInsertsNulls() {
        String uri = tmp.resolve("partial.lance").toString();
        for (MergeInsertOptions opt : List.of(MergeInsertOptions.DEFAULTS,
                MergeInsertOptions.budget(1 << 20).withFanOut(2).withSpillDirectory(tmp.resolve("sp")))) {
            try (Dataset v1 = Dataset.write(uri + opt.fanOut(), Flux.just(1).map(x -> batch(alloc, new Long[] {1L, 2L, 3L},
                    new long[] {10, 20, 30}, 20, true)), SCHEMA, WriteParams.of(WriteMode.CREATE)).block()) {
                MergeInsertResult res = v1.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                        .execute(Flux.just(1).map(x -> batch(alloc, new Long[] {2L, 4L}, new long[] {200, 400}, 0, false)), opt).block();
                try (Dataset v2 = res.dataset()) {
                    assertThat(res.updated()).isEqualTo(1);
                    assertThat(res.inserted()).isEqualTo(1);
                    Map<Long, List<Object>> got = read(v2, alloc);
                    assertThat(got.get(1L)).containsExactly(10L, payload(1, 10, 20));
                    assertThat(got.get(2L)).containsExactly(200L, payload(2, 20, 20)); // payload kept from the target
                    assertThat(got.get(3L)).containsExactly(30L, payload(3, 30, 20));
                    assertThat(got.get(4L)).containsExactly(400L, null);
                }
            }
        }
        try (Dataset v1 = Dataset.open(uri + 2).block()) {
            // a source column the dataset lacks is a typed error
            assertThatThrownBy(() -> v1.mergeInsert(List.of("id")).execute(Flux.just(1).map(x -> {
                VectorSchemaRoot r = VectorSchemaRoot.create(new Schema(List.of(SCHEMA.getFields().get(0),
                        new Field("zz", FieldType.nullable(new ArrowType.Int(32, true)), null))), alloc);
                r.allocateNew();
                r.setRowCount(0);
                return r;
            })).block()).isInstanceOf(SchemaMismatchException.class).hasMessageContaining("zz");
        }
    }

    @Test
    void singleColumnKeyMatchesNullToNull() {
        String uri = tmp.resolve("nullkey.lance").toString();
        try (Dataset v1 = Dataset.write(uri, Flux.just(1).map(x -> batch(alloc, new Long[] {1L, null}, new long[] {1, 2}, 10, true)),
                SCHEMA, WriteParams.of(WriteMode.CREATE)).block()) {
            MergeInsertResult res = v1.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .execute(Flux.just(1).map(x -> batch(alloc, new Long[] {null}, new long[] {99}, 10, true))).block();
            try (Dataset v2 = res.dataset()) {
                assertThat(res.updated()).isEqualTo(1); // NULL = NULL for a single-column key (Lance)
                assertThat(res.inserted()).isZero();
                assertThat(read(v2, alloc).get(Long.MIN_VALUE)).containsExactly(99L, payload(-1, 99, 10));
            }
            // two source rows for one target row, by value and by NULL, in memory and spilled: Lance's error
            for (Long dup : new Long[] {1L, null}) {
                for (MergeInsertOptions opt : List.of(MergeInsertOptions.DEFAULTS,
                        MergeInsertOptions.budget(1 << 20).withFanOut(2).withSpillDirectory(tmp.resolve("sp-dup")))) {
                    assertThatThrownBy(() -> v1.mergeInsert(List.of("id")).whenMatchedUpdateAll()
                            .execute(Flux.just(1).map(x -> batch(alloc, new Long[] {dup, 7L, dup}, new long[] {1, 2, 3}, 10, true)), opt)
                            .block())
                            .isInstanceOf(SchemaEvolutionException.class).hasMessageContaining("Ambiguous merge insert")
                            .hasMessageContaining("id = " + dup);
                }
            }
        }
    }

    @Test
    void spilledUpsertKeepsStableRowIdsAndCreatedVersions() {
        String uri = tmp.resolve("stable.lance").toString();
        Long[] ids = new Long[3000];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = (long) i;
        }
        try (Dataset v1 = Dataset.write(uri, Flux.just(1).map(x -> batch(alloc, ids, new long[ids.length], 10, true)), SCHEMA,
                WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(1000).withEnableStableRowIds(true)).block()) {
            Map<Long, Long> before = rowIds(v1);
            List<Long> src = new ArrayList<>();
            for (long id = 1500; id < 4500; id++) { // 1500 updates, 1500 inserts, in many partitions
                src.add(id);
            }
            MergeInsertResult res = v1.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll()
                    .execute(Flux.fromIterable(chunks(src, 300)).map(c -> {
                        long[] vs = new long[c.size()];
                        java.util.Arrays.fill(vs, 2);
                        return batch(alloc, c.toArray(Long[]::new), vs, 400, true);
                    }), MergeInsertOptions.budget(1 << 20).withFanOut(3).withSpillDirectory(tmp.resolve("sp-stable"))).block();
            try (Dataset v2 = res.dataset()) {
                assertThat(res.updated()).isEqualTo(1500);
                assertThat(res.inserted()).isEqualTo(1500);
                Map<Long, Long> after = rowIds(v2);
                assertThat(after).hasSize(4500);
                for (long id = 0; id < 3000; id++) {
                    assertThat(after.get(id)).as("row id of %d", id).isEqualTo(before.get(id));
                }
                assertThat(new java.util.HashSet<>(after.values())).hasSize(4500);
                assertThat(v2.count("_row_created_at_version = 1").block()).isEqualTo(3000);
                assertThat(v2.count("_row_last_updated_at_version = 2").block()).isEqualTo(3000);
            }
        }
    }

    private Map<Long, Long> rowIds(Dataset ds) {
        Map<Long, Long> out = new HashMap<>();
        for (VectorSchemaRoot b : ds.scanner().columns("id").withRowId(true).scan(alloc).publishOn(Schedulers.boundedElastic(), 1)
                .toIterable(1)) {
            try (b) {
                for (int i = 0; i < b.getRowCount(); i++) {
                    out.put(((BigIntVector) b.getVector("id")).get(i), ((org.apache.arrow.vector.UInt8Vector) b.getVector("_rowid")).get(i));
                }
            }
        }
        return out;
    }
}
