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
            for (int i = 0; i < 100; i++) {
                int id = rnd.nextInt(N);
                assertThat(s.resolve(id).block()).contains(frags.get(id));
            }
            long pointGets = fx.store.count("gets");
            long pointBytes = fx.store.count("bytesRead");

            // Steady state: appends and single-row deletes.
            int commits = 100;
            fx.store.resetCounts();
            long maxId = N - 1;
            List<DataFragment> model = new ArrayList<>(frags);
            long t4 = System.nanoTime();
            long appendReads = 0;
            for (int i = 0; i < commits; i++) {
                DataFragment f = TreeFixture.frag(++maxId, 1000, 1);
                model.add(f);
                long readsBefore = fx.store.counts().reads();
                FragmentTreeMetadata m = fx.writer.commit(s, List.of(new FragmentEdit.Create(f)), maxId).block()
                        .metadata();
                appendReads += fx.store.counts().reads() - readsBefore;
                s = fx.open(m, maxId);
            }
            long t5 = System.nanoTime();
            MemoryTreeStore.Counts appends = fx.store.counts();
            fx.store.resetCounts();
            for (int i = 0; i < commits; i++) {
                int id = rnd.nextInt(N);
                DataFragment g = TreeFixture.withDeletes(model.get(id), 1 + (model.get(id).hasDeletionFile()
                        ? model.get(id).getDeletionFile().getNumDeletedRows() : 0), i);
                model.set(id, g);
                s = fx.open(fx.writer.commit(s, List.of(new FragmentEdit.Put(g)), maxId).block().metadata(), maxId);
            }
            MemoryTreeStore.Counts deletes = fx.store.counts();
            assertThat(fx.list(s)).isEqualTo(model);
            TreeSet<Long> probe = new TreeSet<>(List.of(0L, 5L, 50_000L, maxId));
            Map<Long, DataFragment> got = s.resolveAll(probe).block();
            assertThat(got).hasSize(4);

            System.out.printf("N=%d build %.0f ms: %d objects, %d bytes (%.1f B/fragment), height %d%n", N,
                    (t1 - t0) / 1e6, built.written().size(), built.bytesWritten(),
                    built.bytesWritten() / (double) N, s.height());
            System.out.printf("open: %d GET; list all: %.0f ms; point resolve: %.2f GET, %.0f bytes read per lookup%n",
                    openGets, (t3 - t2) / 1e6, pointGets / 100.0, pointBytes / 100.0);
            System.out.printf("append x%d (%.0f ms): %.3f objects, %.0f bytes written per commit; %.3f reads per commit%n",
                    commits, (t5 - t4) / 1e6, appends.puts() / (double) commits,
                    appends.bytesWritten() / (double) commits, appendReads / (double) commits);
            System.out.printf("delete-one-row x%d: %.3f objects, %.0f bytes written, %.3f GETs, %.0f bytes read per commit%n",
                    commits, deletes.puts() / (double) commits, deletes.bytesWritten() / (double) commits,
                    deletes.gets() / (double) commits, deletes.bytesRead() / (double) commits);
            System.out.printf("descriptor: %d bytes%n", s.metadata().getSerializedSize());
            assertThat(openGets).isLessThanOrEqualTo(1);
        }
    }
}
