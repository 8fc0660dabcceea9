package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.Table;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.roaringbitmap.RoaringBitmap;

/**
 * Issue 8's randomized differential test through the real commit engine: the same random history of
 * racing pairs (two transactions planned against the same version, committed one after the other,
 * so the second rebases or conflicts) on a flat table and on a tree table gives the same verdict for
 * every commit (version or error type) and identical fragment state at every version.
 */
class RacingDifferentialTest {

    /** Racing pairs per history; {@code -Djavelin.tree.racingSteps=200} for a long run. */
    static final int STEPS = Integer.getInteger("javelin.tree.racingSteps", 18);

    static final List<Field> SCHEMA = TreeTableTest.SCHEMA;

    /** One layout: its store, table and engine, and the verdicts it gave. */
    static final class Side {
        final TreeTableTest.Recording store = new TreeTableTest.Recording();
        final Table table = new Table(store);
        final CommitEngine engine = new CommitEngine(store, TreeTableTest.FAST);
        final List<String> verdicts = new ArrayList<>();

        void commit(Transaction txn) {
            try {
                verdicts.add("v" + engine.commit(txn).block().version());
            } catch (RuntimeException e) {
                verdicts.add(e.getClass().getSimpleName());
            }
        }
    }

    /** Conflict verdicts over every seed (some seeds raise none). */
    static final java.util.concurrent.atomic.AtomicLong conflicts = new java.util.concurrent.atomic.AtomicLong();

    @org.junit.jupiter.api.AfterAll
    static void someRacingPairConflicted() {
        assertThat(conflicts.get()).as("racing pairs that ended in a conflict").isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {81, 82, 83})
    void racingPairsGetTheSameVerdictsAndStateOnBothLayouts(long seed) {
        Random rnd = new Random(seed);
        Side flat = new Side();
        Side tree = new Side();
        flat.engine.commit(Transactions.overwrite(0, TreeTableTest.fragments("c", 240), SCHEMA, Map.of())).block();
        tree.engine.commit(Transactions.overwrite(0, TreeTableTest.fragments("c", 240), SCHEMA, TreeTableTest.SMALL))
                .block();
        int nextField = 1;
        for (int step = 0; step < STEPS; step++) {
            Snapshot s = flat.table.open().block();
            assertThat(tree.table.open().block().version()).isEqualTo(s.version());
            List<DataFragment> live = s.loadFragments().block().stream().map(FragmentInfo::fragment).toList();
            Transaction[] pair = new Transaction[2];
            for (int k = 0; k < 2; k++) {
                int kind = rnd.nextInt(8);
                if (kind == 7) {
                    List<Field> schema = new ArrayList<>(s.manifestFile().manifest().getFieldsList());
                    schema.add(Field.newBuilder().setName("f" + nextField).setId(nextField++).setParentId(-1)
                            .setLogicalType("int64").build());
                    pair[k] = Transactions.project(s.version(), schema);
                } else {
                    pair[k] = plan(kind, rnd, s.version(), live, step + "" + k, flat, tree);
                }
            }
            for (Transaction t : pair) {
                flat.commit(t);
                tree.commit(t);
            }
            assertThat(tree.verdicts).as("seed %d step %d", seed, step).isEqualTo(flat.verdicts);
        }
        assertThat(flat.verdicts).as("the history raced: some pair rebased onto its rival")
                .anyMatch(v -> v.startsWith("v"));
        conflicts.addAndGet(flat.verdicts.stream().filter(v -> !v.startsWith("v")).count());
        long latest = flat.table.open().block().version();
        assertThat(tree.table.open().block().version()).isEqualTo(latest);
        for (long v = 1; v <= latest; v++) {
            assertThat(TreeTableTest.list(tree.table, v)).as("version %d", v).isEqualTo(TreeTableTest.list(flat.table, v));
            Snapshot t = tree.table.checkout(v).block();
            assertThat(t.countRows()).isEqualTo(flat.table.checkout(v).block().countRows());
            assertThat(t.manifestFile().manifest().getFragmentsCount()).isZero();
        }
    }

    /** One of the first two fragments most of the time, so that the two transactions of a pair often collide. */
    static DataFragment pick(Random rnd, List<DataFragment> live) {
        int bound = rnd.nextInt(4) > 0 ? Math.min(2, live.size()) : live.size();
        return live.get(rnd.nextInt(bound));
    }

    static Transaction plan(int kind, Random rnd, long v, List<DataFragment> live, String tag, Side flat, Side tree) {
        DataFragment f = pick(rnd, live);
        return switch (kind) {
            case 0 -> Transactions.append(v, TreeTableTest.fragments("a" + tag, 1 + rnd.nextInt(3)));
            case 1 -> Transactions.delete(v, List.of(f.toBuilder().setDeletionFile(deletion(rnd, f, v, flat, tree))
                    .build()), List.of(), "rows of " + f.getId());
            case 2 -> Transactions.delete(v, List.of(), List.of(f.getId()), "fragment " + f.getId());
            case 3 -> Transactions.update(v, List.of(), List.of(f.toBuilder().setFiles(0, f.getFiles(0).toBuilder()
                    .setPath("u" + tag + "-" + f.getId() + ".lance")).build()), List.of(), List.of(0));
            case 4 -> Transactions.dataReplacement(v, Map.of(f.getId(), f.getFiles(0).toBuilder()
                    .setPath("r" + tag + "-" + f.getId() + ".lance").build()));
            case 5 -> {
                DataFragment g = pick(rnd, live);
                List<DataFragment> group = g.getId() == f.getId() ? List.of(f) : List.of(f, g);
                long rows = group.stream().mapToLong(DataFragment::getPhysicalRows).sum();
                yield Transactions.rewrite(v, List.of(Transaction.Rewrite.RewriteGroup.newBuilder()
                        .addAllOldFragments(group).addNewFragments(TreeTableTest.fragment("w" + tag + ".lance", rows))
                        .build()));
            }
            default -> Transactions.reserveFragments(v, 1 + rnd.nextInt(3));
        };
    }

    /**
     * The fragment's cumulative deletion vector plus one more row, written once and copied byte for
     * byte to the other store (same path and id on both sides).
     */
    static DeletionFile deletion(Random rnd, DataFragment f, long v, Side flat, Side tree) {
        RoaringBitmap rows = DeletionFiles.read(flat.store, f).block();
        rows.add(rnd.nextInt((int) f.getPhysicalRows()));
        DeletionFile df = DeletionFiles.write(flat.store, f.getId(), v, rows).block();
        String path = DeletionFiles.path(f.getId(), df);
        tree.store.put(path, flat.store.read(path).block()).block();
        return df;
    }
}
