package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.engine.FragmentMetadata;
import io.javelin.engine.WriteMode;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.tx.pb.DataFile;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.connector.write.PhysicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;

/**
 * Executors write fragments (uncommitted data files); the driver commits all of them as one Append or
 * Overwrite. An aborted job deletes the files its committed tasks wrote, so nothing of it stays behind.
 */
final class JavelinBatchWrite implements BatchWrite {

    private final String uri;
    private final JavelinOptions options;
    private final WriteMode mode;
    private final Schema arrow;
    private final StructType spark;
    private final CopyOnWriteOperation replacing;

    JavelinBatchWrite(String uri, JavelinOptions options, WriteMode mode, Schema arrow, StructType spark) {
        this(uri, options, mode, arrow, spark, null);
    }

    /** {@code replacing}: the copy-on-write operation whose scanned fragments this write replaces, or null. */
    JavelinBatchWrite(String uri, JavelinOptions options, WriteMode mode, Schema arrow, StructType spark, CopyOnWriteOperation replacing) {
        this.replacing = replacing;
        this.uri = uri;
        this.options = options;
        this.mode = mode;
        this.arrow = arrow;
        this.spark = spark;
    }

    @Override
    public DataWriterFactory createBatchWriterFactory(PhysicalWriteInfo info) {
        return new JavelinDataWriterFactory(uri, options.storage(), mode, arrow.toJson(), spark, options.batchSize(),
                options.maxRowsPerFile());
    }

    @Override
    public void commit(WriterCommitMessage[] messages) {
        List<FragmentMetadata> fragments = fragments(messages);
        if (replacing != null) {
            replacing.commit(fragments);
            return;
        }
        Dataset.commit(uri, options.storage(), mode, fragments, arrow).block().close();
    }

    @Override
    public void abort(WriterCommitMessage[] messages) {
        List<String> paths = new ArrayList<>();
        for (FragmentMetadata f : fragments(messages)) {
            for (DataFile d : f.fragment().getFilesList()) {
                paths.add("data/" + d.getPath());
            }
        }
        if (!paths.isEmpty()) {
            ObjectStore store = ObjectStores.open(uri, options.storage());
            store.deleteAll(paths).block();
        }
    }

    private static List<FragmentMetadata> fragments(WriterCommitMessage[] messages) {
        List<FragmentMetadata> out = new ArrayList<>();
        for (WriterCommitMessage m : messages) {
            if (m instanceof JavelinCommitMessage jm) {
                jm.fragments().forEach(j -> out.add(FragmentMetadata.fromJson(j)));
            }
        }
        return out;
    }
}
