package io.javelin.spark;

import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Columnar readers for fragments; a one-row reader for a pushed {@code COUNT(*)}. */
final class JavelinReaderFactory implements PartitionReaderFactory {

    @Override
    public boolean supportColumnarReads(InputPartition partition) {
        return partition instanceof FragmentPartition;
    }

    @Override
    public PartitionReader<ColumnarBatch> createColumnarReader(InputPartition partition) {
        return new FragmentBatchReader((FragmentPartition) partition);
    }

    @Override
    public PartitionReader<InternalRow> createReader(InputPartition partition) {
        if (!(partition instanceof CountPartition c)) {
            throw new JavelinSparkException("Fragments are read as columnar batches only");
        }
        return new PartitionReader<>() {
            private boolean done;

            @Override
            public boolean next() {
                boolean has = !done;
                done = true;
                return has;
            }

            @Override
            public InternalRow get() {
                return new GenericInternalRow(new Object[] {c.count()});
            }

            @Override
            public void close() {
            }
        };
    }
}
