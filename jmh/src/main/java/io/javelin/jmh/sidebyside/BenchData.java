package io.javelin.jmh.sidebyside;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The side-by-side dataset (issue #10): {@code id int64} (row number), {@code f float32} uniform in
 * [0, 1), {@code s utf8} of 16-20 random letters, {@code vec fixed_size_list<float32, 128>}. A pool of
 * template batches is generated once (seeded); every batch handed to a writer shares the template's
 * {@code f}/{@code s}/{@code vec} buffers (reference-counted, no copy) and gets a fresh {@code id} buffer,
 * so generating 10M rows costs both engines the same and almost nothing.
 */
final class BenchData implements AutoCloseable {

    static final int DIM = 128;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(
                    new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    final long rows;
    final int batchRows;
    private final BufferAllocator alloc;
    private final List<VectorSchemaRoot> templates = new ArrayList<>();

    BenchData(BufferAllocator alloc, long rows, int batchRows, int poolBatches, long seed) {
        this.alloc = alloc;
        this.rows = rows;
        this.batchRows = batchRows;
        SplittableRandom rnd = new SplittableRandom(seed);
        int pool = (int) Math.max(1, Math.min(poolBatches, (rows + batchRows - 1) / batchRows));
        for (int b = 0; b < pool; b++) {
            templates.add(template(rnd));
        }
    }

    private VectorSchemaRoot template(SplittableRandom rnd) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
        int n = batchRows;
        BigIntVector id = (BigIntVector) root.getVector("id");
        Float4Vector f = (Float4Vector) root.getVector("f");
        VarCharVector s = (VarCharVector) root.getVector("s");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        id.allocateNew(n);
        f.allocateNew(n);
        s.allocateNew(20L * n, n);
        vec.setInitialCapacity(n);
        vec.allocateNew();
        items.allocateNew(n * DIM);
        byte[] str = new byte[20];
        for (int i = 0; i < n; i++) {
            id.set(i, i);
            f.set(i, (float) rnd.nextDouble());
            int len = 16 + rnd.nextInt(5);
            for (int k = 0; k < len; k++) {
                str[k] = (byte) ('a' + rnd.nextInt(26));
            }
            s.setSafe(i, str, 0, len);
            vec.setNotNull(i);
            for (int k = 0; k < DIM; k++) {
                items.set(i * DIM + k, (float) rnd.nextDouble());
            }
        }
        items.setValueCount(n * DIM);
        root.setRowCount(n);
        return root;
    }

    /** Arrow bytes of the whole dataset (buffer sizes of the generated batches, pro rata for the last one). */
    long arrowBytes() {
        long perBatch = 0;
        for (var v : templates.get(0).getFieldVectors()) {
            perBatch += v.getBufferSize();
        }
        return (long) ((double) perBatch / batchRows * rows);
    }

    int batches() {
        return (int) ((rows + batchRows - 1) / batchRows);
    }

    /** Loads batch {@code b} into {@code into} (which must have {@link #SCHEMA}); returns its row count. */
    int load(int b, VectorSchemaRoot into) {
        VectorSchemaRoot t = templates.get(b % templates.size());
        int n = (int) Math.min(batchRows, rows - (long) b * batchRows);
        try (ArrowRecordBatch rb = new VectorUnloader(t).getRecordBatch()) {
            new VectorLoader(into).load(rb);
        }
        BigIntVector id = (BigIntVector) into.getVector("id");
        id.clear(); // drop the shared template buffer: ids are fresh per batch
        id.allocateNew(batchRows);
        long base = (long) b * batchRows;
        for (int i = 0; i < batchRows; i++) {
            id.set(i, base + i);
        }
        id.setValueCount(batchRows);
        if (n < batchRows) {
            into.setRowCount(n);
            for (var v : into.getFieldVectors()) {
                v.setValueCount(n);
            }
            ((FixedSizeListVector) into.getVector("vec")).getDataVector().setValueCount(n * DIM);
        }
        into.setRowCount(n);
        return n;
    }

    /** Batch {@code b} as a new root owned by the caller. */
    VectorSchemaRoot batch(int b) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
        load(b, r);
        return r;
    }

    @Override
    public void close() {
        templates.forEach(VectorSchemaRoot::close);
    }
}
