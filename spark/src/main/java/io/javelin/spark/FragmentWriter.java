package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.engine.FragmentMetadata;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.execution.arrow.ArrowWriter;

/**
 * One task's writer: Spark rows are appended to Arrow batches by Spark's own {@code ArrowWriter}, each full
 * batch goes to {@link Dataset#writeFragments} (which closes it once encoded), and {@link #commit} returns
 * the fragments written, uncommitted.
 */
final class FragmentWriter implements DataWriter<InternalRow> {

    /** A batch is also handed over when its vectors reach this size, so wide rows stay bounded. */
    static final long MAX_BATCH_BYTES = 32L << 20;

    private final JavelinDataWriterFactory f;
    private final Schema schema;
    private final BufferAllocator allocator;
    private final PushBridge<List<FragmentMetadata>> bridge;
    private VectorSchemaRoot root;
    private ArrowWriter writer;
    private int rows;

    FragmentWriter(JavelinDataWriterFactory f, Schema schema, int partitionId, long taskId) {
        this.f = f;
        this.schema = schema;
        this.allocator = Allocators.child("javelin-write-" + partitionId + "-" + taskId);
        WriteParams params = WriteParams.of(f.mode() == WriteMode.APPEND ? WriteMode.APPEND : WriteMode.OVERWRITE);
        if (f.maxRowsPerFile() > 0) {
            params = params.withMaxRowsPerFile(f.maxRowsPerFile());
        }
        WriteParams p = params;
        this.bridge = new PushBridge<>(input -> Dataset.writeFragments(f.uri(), f.storage(), input, schema, p));
    }

    @Override
    public void write(InternalRow row) {
        if (writer == null) {
            root = VectorSchemaRoot.create(schema, allocator);
            writer = ArrowWriter.create(root);
        }
        writer.write(row);
        rows++;
        if (rows >= f.batchRows() || (rows % 1024 == 0 && writer.sizeInBytes() >= MAX_BATCH_BYTES)) {
            flush();
        }
    }

    private void flush() {
        if (writer == null) {
            return;
        }
        writer.finish();
        VectorSchemaRoot full = root;
        root = null;
        writer = null;
        rows = 0;
        try {
            bridge.push(full);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JavelinSparkException("Write to " + f.uri() + " interrupted", e);
        }
    }

    @Override
    public WriterCommitMessage commit() {
        flush();
        try {
            List<FragmentMetadata> written = bridge.complete();
            return new JavelinCommitMessage(written.stream().map(FragmentMetadata::toJson).toList());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JavelinSparkException("Write to " + f.uri() + " interrupted", e);
        }
    }

    @Override
    public void abort() {
        bridge.fail(new CancellationException("Spark aborted the task"));
    }

    @Override
    public void close() {
        if (root != null) {
            root.close();
            root = null;
            writer = null;
        }
        Allocators.closeWhenReleased(allocator);
    }
}
