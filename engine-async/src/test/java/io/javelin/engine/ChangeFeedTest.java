package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.engine.maintenance.CompactionOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.UInt8Vector;
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

/** The change feed between any two versions of a random history equals the diff of a ledger's states. */
class ChangeFeedTest {

    @TempDir
    Path tmp;

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        alloc.close();
    }

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("v", FieldType.nullable(new ArrowType.Int(64, true)), null)));

    /** A row of the ledger: its value, the version that inserted it and the one that last changed it. */
    record Row(long v, long created, long changed) {
    }

    Flux<VectorSchemaRoot> rows(List<Long> ids, long v) {
        return Flux.just(1).map(x -> {
            VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
            r.allocateNew();
            for (int i = 0; i < ids.size(); i++) {
                ((BigIntVector) r.getVector("id")).setSafe(i, ids.get(i));
                ((BigIntVector) r.getVector("v")).setSafe(i, v);
            }
            r.setRowCount(ids.size());
            r.getFieldVectors().forEach(f -> f.setValueCount(ids.size()));
            return r;
        });
    }

    @Test
    void feedEqualsTheLedgerOverARandomHistory() {
        Random rnd = new Random(42);
        String uri = tmp.resolve("cdf.lance").toString();
        Map<Long, TreeMap<Long, Row>> states = new HashMap<>(); // version → id → row
        TreeMap<Long, Row> state = new TreeMap<>();
        List<Long> first = new ArrayList<>();
        for (long i = 0; i < 400; i++) {
            first.add(i);
        }
        Dataset ds = Dataset.write(uri, rows(first, 0), SCHEMA, WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(150)
                .withEnableStableRowIds(true)).block();
        for (long id : first) {
            state.put(id, new Row(0, 1, 1));
        }
        states.put(ds.version(), new TreeMap<>(state));
        long nextId = 400;
        for (int step = 0; step < 14; step++) {
            long next = ds.version() + 1;
            Dataset after;
            int op = rnd.nextInt(5);
            if (op == 0) { // append
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < 30 + rnd.nextInt(50); i++) {
                    ids.add(nextId++);
                }
                after = ds.append(rows(ids, next), SCHEMA).block();
                ids.forEach(id -> state.put(id, new Row(next, next, next)));
            } else if (op == 1) { // update
                int k = 5 + rnd.nextInt(7);
                int r = rnd.nextInt(k);
                after = ds.update("id % " + k + " = " + r, Map.of("v", String.valueOf(next))).block().dataset();
                state.replaceAll((id, row) -> id % k == r ? new Row(next, row.created(), next) : row);
            } else if (op == 2) { // delete
                int k = 6 + rnd.nextInt(9);
                int r = rnd.nextInt(k);
                after = ds.delete("id % " + k + " = " + r).block();
                state.keySet().removeIf(id -> id % k == r);
            } else if (op == 3) { // upsert: some existing ids, some new
                Set<Long> ids = new HashSet<>();
                for (int i = 0; i < 60; i++) {
                    ids.add((long) rnd.nextInt((int) nextId + 40));
                }
                List<Long> src = new ArrayList<>(ids);
                after = ds.mergeInsert(List.of("id")).whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(rows(src, next))
                        .block().dataset();
                for (long id : src) {
                    Row old = state.get(id);
                    state.put(id, old == null ? new Row(next, next, next) : new Row(next, old.created(), next));
                }
                nextId = Math.max(nextId, src.stream().mapToLong(Long::longValue).max().orElse(0) + 1);
            } else { // compaction changes no row's id or versions
                after = ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(300)).block().dataset();
            }
            ds.close();
            ds = after;
            if (ds.version() == next) {
                states.put(next, new TreeMap<>(state));
            } else {
                assertThat(ds.version()).as("a no-op commits nothing").isEqualTo(next - 1);
            }
        }
        long latest = ds.version();
        List<long[]> pairs = new ArrayList<>(List.of(new long[] {0, latest}, new long[] {1, latest}, new long[] {latest - 1, latest}));
        for (int i = 0; i < 12; i++) {
            long a = 1 + rnd.nextInt((int) latest);
            long b = a + rnd.nextInt((int) (latest - a + 1));
            pairs.add(new long[] {a, b});
        }
        for (long[] p : pairs) {
            Set<String> expected = expected(states, p[0], p[1]);
            Set<String> got = feed(ds, p[0], p[1]);
            assertThat(got).as("changes %d → %d", p[0], p[1]).isEqualTo(expected);
        }
        // row ids: an updated row keeps the id it had at `from`
        long from = 1;
        Map<Long, Long> idsAtFrom = rowIds(ds, from);
        for (VectorSchemaRoot b : ds.changes(from, latest, alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                for (int i = 0; i < b.getRowCount(); i++) {
                    String type = b.getVector(ChangeFeed.TYPE).getObject(i).toString();
                    long id = ((BigIntVector) b.getVector("id")).get(i);
                    long rowId = ((UInt8Vector) b.getVector("_rowid")).get(i);
                    if (!type.equals("insert")) {
                        assertThat(rowId).as("row id of %d (%s)", id, type).isEqualTo(idsAtFrom.get(id));
                    }
                }
            }
        }
        Dataset last = ds;
        assertThatThrownBy(() -> last.changes(3, 2, alloc).blockLast()).isInstanceOf(InvalidScanException.class);
        assertThat(ds.changes(latest, latest, alloc).collectList().block()).isEmpty();
        ds.close();
    }

    private Map<Long, Long> rowIds(Dataset ds, long version) {
        Map<Long, Long> out = new HashMap<>();
        try (Dataset at = ds.checkout(version).block()) {
            for (VectorSchemaRoot b : at.scanner().columns("id").withRowId(true).scan(alloc).publishOn(Schedulers.boundedElastic(), 1)
                    .toIterable(1)) {
                try (b) {
                    for (int i = 0; i < b.getRowCount(); i++) {
                        out.put(((BigIntVector) b.getVector("id")).get(i), ((UInt8Vector) b.getVector("_rowid")).get(i));
                    }
                }
            }
        }
        return out;
    }

    private Set<String> feed(Dataset ds, long from, long to) {
        Set<String> out = new HashSet<>();
        for (VectorSchemaRoot b : ds.changes(from, to, alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                assertThat(b.getSchema().getFields().stream().map(Field::getName).toList())
                        .isEqualTo(ds.changesSchema().getFields().stream().map(Field::getName).toList());
                for (int i = 0; i < b.getRowCount(); i++) {
                    String line = b.getVector(ChangeFeed.TYPE).getObject(i) + "|" + b.getVector("id").getObject(i) + "|"
                            + b.getVector("v").getObject(i) + "|" + ((UInt8Vector) b.getVector(ChangeFeed.VERSION)).get(i) + "|"
                            + ((UInt8Vector) b.getVector("_row_created_at_version")).get(i);
                    assertThat(out.add(line)).as("duplicate change %s", line).isTrue();
                }
            }
        }
        return out;
    }

    /** The ledger's diff: inserted / updated rows at `to`, deleted ones from `from` with the first version lacking them. */
    private static Set<String> expected(Map<Long, TreeMap<Long, Row>> states, long from, long to) {
        TreeMap<Long, Row> a = from == 0 ? new TreeMap<>() : states.get(from);
        TreeMap<Long, Row> b = states.get(to);
        Set<String> out = new HashSet<>();
        b.forEach((id, row) -> {
            if (row.created() > from) {
                out.add("insert|" + id + "|" + row.v() + "|" + row.created() + "|" + row.created());
            } else if (row.changed() > from) {
                out.add("update|" + id + "|" + row.v() + "|" + row.changed() + "|" + row.created());
            }
        });
        a.forEach((id, row) -> {
            if (!b.containsKey(id)) {
                long gone = from + 1;
                while (states.containsKey(gone) && states.get(gone).containsKey(id)) {
                    gone++;
                }
                out.add("delete|" + id + "|" + row.v() + "|" + gone + "|" + row.created());
            }
        });
        return out;
    }
}
