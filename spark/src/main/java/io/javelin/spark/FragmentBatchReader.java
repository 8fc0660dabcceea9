package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.engine.Scanner;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads one fragment as Spark columnar batches that wrap Javelin's Arrow vectors (no copy). A batch stays
 * valid until the next {@link #next()}, which closes it; {@link #close()} (end, error or a killed task)
 * cancels the scan and releases every buffer of this reader.
 */
final class FragmentBatchReader implements PartitionReader<ColumnarBatch> {

    static final int PREFETCH = 2;

    private final FragmentPartition part;
    private final BufferAllocator allocator;
    private final Dataset dataset;
    private final BatchBridge bridge;
    private VectorSchemaRoot current;
    private ColumnarBatch batch;

    FragmentBatchReader(FragmentPartition part) {
        this.part = part;
        this.allocator = Allocators.child("javelin-scan-" + part.fragmentId());
        Dataset ds = null;
        try {
            JavelinOptions at = new JavelinOptions(part.storage(), part.version(), null, part.batchSize(), 0);
            ds = Datasets.open(part.uri(), at);
            Scanner s = ds.scanner().columns(part.columns()).batchSize(part.batchSize()).fragments(List.of(part.fragmentId()));
            if (part.filter() != null) {
                s = s.filter(part.filter());
            }
            reactor.core.publisher.Flux<VectorSchemaRoot> batches;
            if (part.orderBy() != null) {
                batches = s.orderBy(part.orderBy().toArray(String[]::new)).limit(part.limit()).scan(allocator);
            } else {
                batches = (part.limit() >= 0 ? s.limit(part.limit()) : s).scan(allocator);
            }
            this.dataset = ds;
            this.bridge = new BatchBridge(batches, PREFETCH);
        } catch (RuntimeException e) {
            if (ds != null) {
                ds.close();
            }
            allocator.close();
            throw e;
        }
    }

    @Override
    public boolean next() {
        release();
        try {
            current = bridge.next();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JavelinSparkException("Scan of fragment " + part.fragmentId() + " of " + part.uri() + " interrupted", e);
        }
        if (current == null) {
            return false;
        }
        ColumnVector[] cols;
        if (part.countOnly()) {
            cols = new ColumnVector[0];
        } else {
            List<FieldVector> vectors = current.getFieldVectors();
            cols = new ColumnVector[vectors.size()];
            for (int i = 0; i < cols.length; i++) {
                cols[i] = new ArrowColumnVector(vectors.get(i));
            }
        }
        batch = new ColumnarBatch(cols, current.getRowCount());
        return true;
    }

    @Override
    public ColumnarBatch get() {
        return batch;
    }

    private void release() {
        batch = null;
        if (current != null) {
            current.close();
            current = null;
        }
    }

    @Override
    public void close() {
        release();
        bridge.close();
        dataset.close();
        Allocators.closeWhenReleased(allocator);
    }
}
