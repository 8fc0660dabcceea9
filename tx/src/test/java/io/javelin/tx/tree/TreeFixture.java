package io.javelin.tx.tree;

import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.FragmentTreeMetadata;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;

/** Shared test setup: a counting store, an Arrow allocator checked for leaks, record factories. */
final class TreeFixture implements AutoCloseable {

    final BufferAllocator allocator = OffHeapArrow.newRootAllocator("tree-test", Long.MAX_VALUE);
    final MemoryTreeStore store = new MemoryTreeStore();
    final Datasets datasets = new Datasets("mem://ds", List.of());
    TreeConfig config;
    TreeEnv env;
    TreeWriter writer;

    TreeFixture(TreeConfig config) {
        configure(config);
    }

    void configure(TreeConfig c) {
        this.config = c;
        this.env = new TreeEnv(store, new LanceLeafCodec(), allocator, c);
        this.writer = new TreeWriter(env);
    }

    /** Small budgets so that a few hundred fragments build a tree of height >= 2. */
    static TreeConfig small() {
        return new TreeConfig(2_000, 4_000, 600, 4, 0, 400, 4);
    }

    static DataFragment frag(long id, long rows, int files) {
        DataFragment.Builder b = DataFragment.newBuilder().setId(id).setPhysicalRows(rows);
        for (int k = 0; k < files; k++) {
            b.addFiles(file("f" + id + "-" + k + ".lance", k));
        }
        return b.build();
    }

    static DataFile file(String path, int k) {
        return DataFile.newBuilder().setPath(path).addFields(2 * k).addFields(2 * k + 1).addColumnIndices(0)
                .addColumnIndices(1).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1000 + k).build();
    }

    static DataFragment withDeletes(DataFragment f, long deleted, long readVersion) {
        return f.toBuilder().setDeletionFile(DeletionFile.newBuilder().setFileType(DeletionFile.DeletionFileType.BITMAP)
                .setReadVersion(readVersion).setId(7 + readVersion).setNumDeletedRows(deleted)).build();
    }

    static List<DataFragment> frags(int n) {
        List<DataFragment> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(frag(i, 100 + i % 7, 1 + i % 2));
        }
        return out;
    }

    TreeSnapshot open(FragmentTreeMetadata meta, long max) {
        return TreeSnapshot.open(env, meta, datasets, max).block();
    }

    TreeSnapshot build(List<DataFragment> fragments) {
        long max = fragments.stream().mapToLong(DataFragment::getId).max().orElse(-1);
        return open(writer.build(fragments, 1).block().metadata(), max);
    }

    List<DataFragment> list(TreeSnapshot s) {
        return s.fragments().collectList().block();
    }

    @Override
    public void close() {
        allocator.close();
    }
}
