package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** Builds and queries a tree of 10^5 fragments with the default policy; prints what it measured. */
class ScaleTest {

    static final int N = 100_000;

    @Test
    void hundredThousandFragments() {
        try (TreeFixture fx = new TreeFixture(TreeConfig.defaults())) {
            List<DataFragment> frags = new ArrayList<>(N);
            for (int i = 0; i < N; i++) {
                frags.add(TreeFixture.frag(i, 1_000_000, 1));
            }
            long t0 = System.nanoTime();
            TreeWriter.Result built = fx.writer.build(frags, 1).block();
            long t1 = System.nanoTime();
            fx.store.resetCounts();
            TreeSnapshot s = fx.open(built.metadata(), N - 1);
            long openGets = fx.store.count("gets");
            assertThat(s.fragmentCount()).isEqualTo(N);
            assertThat(s.totalRows()).isEqualTo(N * 1_000_000L);
            long t2 = System.nanoTime();
            List<DataFragment> listed = fx.list(s);
            long t3 = System.nanoTime();
            assertThat(listed).isEqualTo(frags);
            Random rnd = new Random(1);
            fx.store.resetCounts();
            for (int i = 0; i < 10; i++) {
                int id = rnd.nextInt(N);
                assertThat(s.resolve(id).block()).contains(frags.get(id));
            }
            long pointGets = fx.store.count("gets");
            long pointBytes = fx.store.count("bytesRead");

            System.out.printf("N=%d build %.0f ms: %d objects, %d bytes (%.1f B/fragment), height %d%n", N,
                    (t1 - t0) / 1e6, built.written().size(), built.bytesWritten(),
                    built.bytesWritten() / (double) N, s.height());
            System.out.printf("open: %d GET; list all: %.0f ms; point resolve: %.2f GET, %.0f bytes read per lookup%n",
                    openGets, (t3 - t2) / 1e6, pointGets / 10.0, pointBytes / 10.0);
            assertThat(openGets).isLessThanOrEqualTo(1);
            steadyState(fx, "inline root (defaults)", TreeConfig.defaults(), s, frags, rnd, 300);
            steadyState(fx, "external root + 32 KiB suffix", TreeConfig.upstreamDefaults().withInlineRootBytes(0), s, frags, rnd,
                    300);
            steadyState(fx, "external root, 16 KiB suffix, 32 KiB buffer", TreeConfig.defaults().withInlineRootBytes(0)
                    .withSuffixBytes(16 << 10).withBufferBytes(32 << 10), s, frags, rnd, 800);
        }
    }

    /** 100 single-fragment appends, then 100 single-row deletes; prints I/O per commit. */
    private static void steadyState(TreeFixture fx, String name, TreeConfig config, TreeSnapshot start,
            List<DataFragment> frags, Random rnd, int commits) {
        fx.configure(config);
        TreeSnapshot s = fx.open(start.metadata(), N - 1);
        long maxId = N - 1;
        long maxDescriptor = 0;
        List<DataFragment> model = new ArrayList<>(frags);
        long descriptorBytes = 0;
        fx.store.resetCounts();
        long t4 = System.nanoTime();
        for (int i = 0; i < commits; i++) {
            DataFragment f = TreeFixture.frag(++maxId, 1000, 1);
            model.add(f);
            TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Create(f)), maxId).block();
            FragmentTreeMetadata m = r.metadata();
            descriptorBytes += m.getSerializedSize();
            maxDescriptor = Math.max(maxDescriptor, m.getSerializedSize());
            s = r.snapshot(fx.env, fx.datasets, maxId);
        }
        long t5 = System.nanoTime();
        MemoryTreeStore.Counts appends = fx.store.counts();
        long appendDescriptor = descriptorBytes;
        descriptorBytes = 0;
        fx.store.resetCounts();
        int deleteCommits = 10;
        for (int i = 0; i < deleteCommits; i++) {
            int id = rnd.nextInt(N);
            DataFragment g = TreeFixture.withDeletes(model.get(id), 1 + (model.get(id).hasDeletionFile()
                    ? model.get(id).getDeletionFile().getNumDeletedRows() : 0), i);
            model.set(id, g);
            TreeWriter.Result r = fx.writer.commit(s, List.of(new FragmentEdit.Put(g)), maxId).block();
            descriptorBytes += r.metadata().getSerializedSize();
            s = r.snapshot(fx.env, fx.datasets, maxId);
        }
        MemoryTreeStore.Counts deletes = fx.store.counts();
        assertThat(fx.list(s)).isEqualTo(model);
        Map<Long, DataFragment> got = s.resolveAll(new TreeSet<>(List.of(0L, 5L, 50_000L, maxId))).block();
        assertThat(got).hasSize(4);
        System.out.printf("[%s] append x%d (%.0f ms): %.2f objects, %.0f bytes written per commit (%.2f GETs, warm session),"
                + " descriptor %.0f B avg, %d B max; writer events %s%n", name, commits, (t5 - t4) / 1e6,
                appends.puts() / (double) commits, appends.bytesWritten() / (double) commits,
                appends.gets() / (double) commits, appendDescriptor / (double) commits, maxDescriptor,
                fx.writer.events());
        System.out.printf("[%s] delete-one-row x%d: %.2f objects, %.0f bytes written, %.2f GETs, %.0f bytes read per commit,"
                + " descriptor %.0f B avg; final height %d%n", name, deleteCommits, deletes.puts() / (double) deleteCommits,
                deletes.bytesWritten() / (double) deleteCommits, deletes.gets() / (double) deleteCommits,
                deletes.bytesRead() / (double) deleteCommits, descriptorBytes / (double) deleteCommits, s.height());
    }
}
