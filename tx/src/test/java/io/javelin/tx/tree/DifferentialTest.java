package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same random history of native operations applied to a flat list of fragments and to the
 * tree must give identical fragment state (and counts) after every operation, and every historical
 * version must stay readable.
 */
class DifferentialTest {

    /** Extra random seeds per policy, for stress runs: {@code -Djavelin.tree.stressSeeds=N}. */
    static Stream<Arguments> configs() {
        int extra = Integer.getInteger("javelin.tree.stressSeeds", 0);
        return baseConfigs().flatMap(a -> Stream.concat(Stream.of(a), java.util.stream.IntStream.range(0, extra)
                .mapToObj(i -> Arguments.of(a.get()[0] + "#" + i, a.get()[1], 1000L + 37L * i + (long) a.get()[2],
                        a.get()[3]))));
    }

    static Stream<Arguments> baseConfigs() {
        TreeConfig small = TreeFixture.small();
        return Stream.of(
                Arguments.of("small-external-suffix", small, 1L, 120),
                Arguments.of("fanout3-drain-often", small.withFanOut(3).withBufferBytes(200).withSuffixBytes(0), 2L, 120),
                Arguments.of("inline-root", small.withInlineRootBytes(6_000).withFanOut(3), 3L, 120),
                Arguments.of("tiny-leaves", small.withLeafBytes(300).withFanOut(5).withBufferBytes(350), 4L, 120),
                Arguments.of("from-empty", small.withFanOut(3).withBufferBytes(300).withSuffixBytes(0), 6L, 0),
                Arguments.of("merge-heavy", small.withLeafBytes(600).withBufferBytes(250).withFanOut(3).withSuffixBytes(0), 7L, 60),
                Arguments.of("wide-fanout", small.withFanOut(16).withLeafBytes(500).withBufferBytes(300), 8L, 150),
                Arguments.of("defaults", TreeConfig.defaults(), 5L, 40));
    }

    /** Steps per history; -Djavelin.tree.differentialSteps=120 for the long run (CI default 50: Lance-file leaves cost more). */
    static final int STEPS = Integer.getInteger("javelin.tree.differentialSteps", 50);

    record Version(FragmentTreeMetadata meta, TreeMap<Long, DataFragment> model, long max) {
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configs")
    void treeMatchesFlatModel(String name, TreeConfig config, long seed, int initialCount) {
        try (TreeFixture fx = new TreeFixture(config)) {
            Random rnd = new Random(seed);
            TreeMap<Long, DataFragment> model = new TreeMap<>();
            List<DataFragment> initial = TreeFixture.frags(initialCount);
            initial.forEach(f -> model.put(f.getId(), f));
            long max = initialCount - 1;
            FragmentTreeMetadata meta = fx.writer.build(initial, 1).block().metadata();
            List<Version> history = new ArrayList<>();
            history.add(new Version(meta, new TreeMap<>(model), max));
            int maxHeight = 0;
            for (int step = 0; step < STEPS; step++) {
                TreeSnapshot base = fx.open(meta, max);
                List<FragmentEdit> edits = new ArrayList<>();
                int op = rnd.nextInt(100);
                List<Long> ids = new ArrayList<>(model.keySet());
                FragmentTreeMetadata next = null;
                long newMax = max;
                if (op < 25 || ids.size() < 6) {
                    int k = 1 + rnd.nextInt(6);
                    for (int i = 0; i < k; i++) {
                        DataFragment f = TreeFixture.frag(++newMax, 10 + rnd.nextInt(1000), 1 + rnd.nextInt(3));
                        edits.add(new FragmentEdit.Create(f));
                        model.put(f.getId(), f);
                    }
                } else if (op < 45) {
                    for (int i = 0; i < 1 + rnd.nextInt(3); i++) {
                        DataFragment f = model.get(ids.get(rnd.nextInt(ids.size())));
                        if (f == null) {
                            continue;
                        }
                        long already = f.hasDeletionFile() ? f.getDeletionFile().getNumDeletedRows() : 0;
                        long deleted = Math.min(f.getPhysicalRows(), already + 1 + rnd.nextInt(40));
                        if (deleted == f.getPhysicalRows() || rnd.nextInt(10) == 0) {
                            edits.add(new FragmentEdit.Remove(f.getId()));
                            model.remove(f.getId());
                        } else {
                            DataFragment g = TreeFixture.withDeletes(f, deleted, step);
                            edits.add(new FragmentEdit.Put(g));
                            model.put(g.getId(), g);
                        }
                    }
                } else if (op < 57) {
                    int field = 100 + step;
                    for (long id : ids) {
                        if (rnd.nextInt(3) == 0) {
                            DataFile df = DataFile.newBuilder().setPath("col" + step + "-" + id + ".lance")
                                    .addFields(field).addColumnIndices(0).setFileMajorVersion(2)
                                    .setFileMinorVersion(1).build();
                            edits.add(new FragmentEdit.AddFile(id, df));
                            model.put(id, model.get(id).toBuilder().addFiles(df).build());
                        }
                    }
                } else if (op < 67) {
                    long id = ids.get(rnd.nextInt(ids.size()));
                    DataFragment f = model.get(id);
                    if (f.getFilesCount() > 0) {
                        int slot = rnd.nextInt(f.getFilesCount());
                        String expected = f.getFiles(slot).getPath();
                        int first = 0;
                        while (!f.getFiles(first).getPath().equals(expected)) {
                            first++;
                        }
                        String path = rnd.nextInt(4) == 0 && f.getFilesCount() > 1 ? f.getFiles(0).getPath()
                                : "r" + step + ".lance";
                        edits.add(new FragmentEdit.ReplaceFile(id, expected, path, 77, null));
                        model.put(id, f.toBuilder().setFiles(first, f.getFiles(first).toBuilder().setPath(path)
                                .setFileSizeBytes(77).clearBaseId()).build());
                    }
                } else if (op < 77) {
                    int k = Math.min(ids.size(), 2 + rnd.nextInt(3));
                    int start = rnd.nextInt(ids.size() - k + 1);
                    long rows = 0;
                    for (int i = start; i < start + k; i++) {
                        long id = ids.get(i);
                        rows += Records.visibleRows(model.get(id));
                        edits.add(new FragmentEdit.Remove(id));
                        model.remove(id);
                    }
                    DataFragment merged = TreeFixture.frag(++newMax, Math.max(1, rows), 1);
                    edits.add(new FragmentEdit.Create(merged));
                    model.put(merged.getId(), merged);
                } else if (op < 85) {
                    long id = ids.get(rnd.nextInt(ids.size()));
                    DataFragment f = model.get(id);
                    DataFragment g = rnd.nextBoolean() && f.getFilesCount() > 1
                            ? f.toBuilder().removeFiles(f.getFilesCount() - 1).build()
                            : f.toBuilder().setInlineRowIds(ByteString.copyFromUtf8("rows" + step)).build();
                    edits.add(new FragmentEdit.Put(g));
                    model.put(id, g);
                } else if (op < 87) {
                    newMax += 3;
                } else if (op < 89) {
                    int start = rnd.nextBoolean() ? 0 : rnd.nextInt(ids.size());
                    for (int i = start; i < Math.min(ids.size(), start + 5 + rnd.nextInt(30)); i++) {
                        edits.add(new FragmentEdit.Remove(ids.get(i)));
                        model.remove(ids.get(i));
                    }
                } else if (op < 93) {
                    List<DataFragment> fresh = new ArrayList<>();
                    model.clear();
                    for (int i = 0; i < 5 + rnd.nextInt(60); i++) {
                        DataFragment f = TreeFixture.frag(++newMax, 50, 1);
                        fresh.add(f);
                        model.put(f.getId(), f);
                    }
                    next = fx.writer.overwrite(base, fresh).block().metadata();
                } else {
                    Version v = history.get(rnd.nextInt(history.size()));
                    model.clear();
                    model.putAll(v.model());
                    next = TreeWriter.restore(base, v.meta());
                }
                if (next == null) {
                    next = fx.writer.commit(base, edits, newMax).block().metadata();
                }
                meta = next;
                max = newMax;
                TreeSnapshot s = fx.open(meta, max);
                maxHeight = Math.max(maxHeight, s.height());
                List<DataFragment> expected = new ArrayList<>(model.values());
                assertThat(fx.list(s)).as("step %d op %d", step, op).isEqualTo(expected);
                assertThat(s.fragmentCount()).isEqualTo(expected.size());
                assertThat(s.totalRows()).isEqualTo(expected.stream().mapToLong(DataFragment::getPhysicalRows).sum());
                assertThat(s.visibleRows()).isEqualTo(expected.stream().mapToLong(Records::visibleRows).sum());
                TreeSet<Long> probe = new TreeSet<>();
                for (int i = 0; i < 5; i++) {
                    probe.add((long) rnd.nextInt((int) max + 2));
                }
                Map<Long, DataFragment> got = s.resolveAll(probe).block();
                for (long id : probe) {
                    assertThat(got.get(id)).as("resolve %d at step %d", id, step).isEqualTo(model.get(id));
                }
                history.add(new Version(meta, new TreeMap<>(model), max));
            }
            for (Version v : history) {
                assertThat(fx.list(fx.open(v.meta(), v.max()))).isEqualTo(new ArrayList<>(v.model().values()));
            }
            System.out.println(name + ": " + fx.writer.events() + " max height " + maxHeight);
            if (!name.contains("#") && !name.equals("defaults") && !name.equals("inline-root")) {
                assertThat(maxHeight).as("max height").isGreaterThanOrEqualTo(2);
            }
        }
    }
}
