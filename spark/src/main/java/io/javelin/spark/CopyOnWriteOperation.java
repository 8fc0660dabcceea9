package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.engine.FragmentMetadata;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.transaction.Transactions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * UPDATE, MERGE INTO and DELETE (when its condition cannot run in Javelin) as copy-on-write over fragments:
 * the operation's scan reads every row of the fragments that may hold a matching row (pruned with the exact
 * part of the condition), Spark computes their new contents, executors write them as new fragments, and
 * the driver commits one Update removing the fragments read and adding those written, on top of the version
 * scanned (Javelin's conflict rules decide against concurrent commits).
 */
final class CopyOnWriteOperation implements RowLevelOperation {

    private final JavelinTable table;
    private final Command command;
    private final List<Long> fragmentsRead = new CopyOnWriteArrayList<>();
    private volatile boolean scanned;

    CopyOnWriteOperation(JavelinTable table, Command command) {
        this.table = table;
        this.command = command;
    }

    @Override
    public Command command() {
        return command;
    }

    @Override
    public String description() {
        return "JavelinCopyOnWrite[" + command + " " + table.uri + "@" + table.version + "]";
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        return new JavelinScanBuilder(table, table.options.overlay(options.asCaseSensitiveMap()), this);
    }

    /** Called by the scan when it plans its partitions: these fragments are replaced at commit. */
    void read(List<Long> fragmentIds) {
        fragmentsRead.clear();
        fragmentsRead.addAll(fragmentIds);
        scanned = true;
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new WriteBuilder() {
            @Override
            public Write build() {
                return new Write() {
                    @Override
                    public org.apache.spark.sql.connector.write.BatchWrite toBatch() {
                        return new JavelinBatchWrite(table.uri, table.options.latest(), io.javelin.engine.WriteMode.APPEND,
                                table.arrowSchema, info.schema(), CopyOnWriteOperation.this);
                    }
                };
            }
        };
    }

    /** The driver's one commit: an Update replacing the fragments read with those written. */
    void commit(List<FragmentMetadata> written) {
        if (!scanned) {
            throw new JavelinSparkException("Copy-on-write " + command + " on " + table.uri + " committed without its scan");
        }
        List<DataFragment> added = written.stream().map(FragmentMetadata::fragment).toList();
        try (Dataset ds = Datasets.open(table.uri, table.options)) {
            ds.commit(Transactions.update(ds.version(), List.copyOf(fragmentsRead), List.of(), added, List.of())).block().close();
        }
    }
}
