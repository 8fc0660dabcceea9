package io.javelin.engine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Hash-partitions batches by merge key into {@code fanOut} spill files. Rows are gathered per partition
 * and written once a partition holds {@code flushBytes}, so the memory held is about
 * {@code fanOut × flushBytes} whatever flows through. Blocking (file I/O): run on a blocking-capable thread.
 */
final class SpillPartitioner implements AutoCloseable {

    private static final int MAX_ROWS = 16 * 1024;

    private final MergeKeys keys;
    private final Schema schema;
    private final int level;
    private final long flushBytes;
    private final BufferAllocator alloc;
    private final SpillFile[] files;
    private final VectorSchemaRoot[] pending;

    SpillPartitioner(Path dir, String prefix, Schema schema, MergeKeys keys, int fanOut, int level, long flushBytes,
                     BufferAllocator alloc) {
        this.keys = keys;
        this.schema = schema;
        this.level = level;
        this.flushBytes = Math.max(16 * 1024, flushBytes);
        this.alloc = alloc;
        this.files = new SpillFile[fanOut];
        this.pending = new VectorSchemaRoot[fanOut];
        for (int p = 0; p < fanOut; p++) {
            files[p] = SpillFile.create(dir, prefix + "-" + p + ".arrows", schema);
        }
    }

    /** Routes every row of {@code b} (left open) to its partition. */
    void add(VectorSchemaRoot b) {
        int n = b.getRowCount();
        int fanOut = files.length;
        int[] count = new int[fanOut];
        int[] part = new int[n];
        List<FieldVector> kv = keys.vectors(b);
        for (int r = 0; r < n; r++) {
            part[r] = MergeKeys.partition(keys.hash(kv, r), level, fanOut);
            count[part[r]]++;
        }
        int[][] rows = new int[fanOut][];
        for (int p = 0; p < fanOut; p++) {
            rows[p] = new int[count[p]];
            count[p] = 0;
        }
        for (int r = 0; r < n; r++) {
            rows[part[r]][count[part[r]]++] = r;
        }
        for (int p = 0; p < fanOut; p++) {
            if (rows[p].length > 0) {
                append(p, b, rows[p]);
            }
        }
    }

    private void append(int p, VectorSchemaRoot b, int[] rows) {
        if (pending[p] == null) {
            pending[p] = VectorSchemaRoot.create(schema, alloc);
            pending[p].allocateNew();
        }
        VectorSchemaRoot to = pending[p];
        int at = to.getRowCount();
        long size = 0;
        for (int c = 0; c < schema.getFields().size(); c++) {
            FieldVector dst = to.getVector(c);
            TransferPair tp = b.getVector(c).makeTransferPair(dst);
            for (int i = 0; i < rows.length; i++) {
                tp.copyValueSafe(rows[i], at + i);
            }
            dst.setValueCount(at + rows.length);
            size += dst.getBufferSize();
        }
        to.setRowCount(at + rows.length);
        if (size >= flushBytes || to.getRowCount() >= MAX_ROWS) {
            flush(p);
        }
    }

    private void flush(int p) {
        if (pending[p] != null) {
            try (VectorSchemaRoot r = pending[p]) {
                pending[p] = null;
                files[p].append(r);
            }
        }
    }

    /** Flushes and closes every partition file. */
    List<SpillFile> finish() {
        List<SpillFile> out = new ArrayList<>();
        for (int p = 0; p < files.length; p++) {
            flush(p);
            files[p].finish();
            out.add(files[p]);
        }
        return out;
    }

    @Override
    public void close() {
        for (int p = 0; p < pending.length; p++) {
            if (pending[p] != null) {
                pending[p].close();
                pending[p] = null;
            }
            files[p].abandon();
        }
    }
}
