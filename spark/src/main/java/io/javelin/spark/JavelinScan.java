package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.read.Batch;
import org.apache.spark.sql.connector.read.InputPartition;
import org.apache.spark.sql.connector.read.PartitionReaderFactory;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.Statistics;
import org.apache.spark.sql.connector.read.SupportsReportStatistics;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * One scan of one dataset version: an input partition per fragment (fragments without live rows skipped;
 * with a limit and no filter, only as many fragments as the limit needs), or a single row for a
 * {@code COUNT(*)} answered from the manifest.
 */
final class JavelinScan implements Scan, Batch, SupportsReportStatistics {

    private final JavelinTable table;
    private final JavelinOptions options;
    private final List<String> columns;
    private final List<String> filters;
    private final List<String> pushedDescription;
    private final long limit;
    private final boolean countStar;
    private final StructType readSchema;
    private final CopyOnWriteOperation operation;
    /** Sort clauses of a pushed top-N (with {@code limit}), or null. */
    private final List<String> orderBy;
    private final List<String> groupFilters;

    JavelinScan(JavelinTable table, JavelinOptions options, List<String> columns, List<String> filters,
                List<String> pushedDescription, long limit, List<String> orderBy, boolean countStar, CopyOnWriteOperation operation,
                List<String> groupFilters) {
        this.operation = operation;
        this.groupFilters = groupFilters;
        this.orderBy = orderBy;
        this.table = table;
        this.options = options;
        this.columns = columns;
        this.filters = filters;
        this.pushedDescription = pushedDescription;
        this.limit = limit;
        this.countStar = countStar;
        if (countStar) {
            this.readSchema = new StructType().add("count(*)", DataTypes.LongType, false);
        } else if (columns.isEmpty()) {
            this.readSchema = new StructType();
        } else {
            try (Dataset ds = Datasets.open(table.uri, options)) {
                Schema out = ds.scanner().columns(columns).outputSchema();
                this.readSchema = SparkSchemas.toSpark(out);
            }
        }
    }

    String filter() {
        return filters.isEmpty() ? null : String.join(" AND ", filters.stream().map(f -> "(" + f + ")").toList());
    }

    @Override
    public StructType readSchema() {
        return readSchema;
    }

    @Override
    public String description() {
        StringBuilder b = new StringBuilder("JavelinScan[").append(table.uri).append('@').append(options.version());
        if (countStar) {
            b.append(", aggregate=COUNT(*) from metadata");
        } else {
            b.append(", columns=").append(columns);
        }
        b.append(", filter=").append(filter() == null ? "none" : filter());
        b.append(", pushedPredicates=").append(pushedDescription);
        if (orderBy != null) {
            b.append(", topN=").append(orderBy);
        }
        if (limit >= 0) {
            b.append(", limit=").append(limit);
        }
        if (operation != null) {
            b.append(", copyOnWrite=").append(operation.command()).append(" fragments matching ")
                    .append(groupFilters.isEmpty() ? "all" : String.join(" AND ", groupFilters));
        }
        return b.append(']').toString();
    }

    @Override
    public Batch toBatch() {
        return this;
    }

    @Override
    public InputPartition[] planInputPartitions() {
        try (Dataset ds = Datasets.open(table.uri, options)) {
            if (countStar) {
                return new InputPartition[] {new CountPartition(ds.count().block())};
            }
            List<FragmentInfo> fragments = ds.loadFragments().block();
            List<InputPartition> parts = new ArrayList<>();
            String filter = filter();
            List<String> scanColumns = columns.isEmpty() ? List.of(table.arrowSchema.getFields().getFirst().getName()) : columns;
            long rows = 0;
            String group = groupFilters.isEmpty() ? null : String.join(" AND ", groupFilters.stream().map(g -> "(" + g + ")").toList());
            List<Long> read = new ArrayList<>();
            for (FragmentInfo f : fragments) {
                if (f.liveRows() == 0) {
                    continue;
                }
                if (group != null && ds.scanner().fragments(List.of(f.id())).filter(group).count().block() == 0) {
                    continue; // no row of this fragment matches: it is neither read nor replaced
                }
                read.add(f.id());
                if (limit >= 0 && filter == null && orderBy == null && rows >= limit) {
                    break; // earlier fragments already hold the limit's rows
                }
                rows += f.liveRows();
                parts.add(new FragmentPartition(table.uri, options.storage(), ds.version(), f.id(), scanColumns, columns.isEmpty(),
                        filter, limit, orderBy, options.batchSize(), f.physicalRows()));
            }
            if (operation != null) {
                operation.read(read);
            }
            return parts.toArray(InputPartition[]::new);
        }
    }

    @Override
    public PartitionReaderFactory createReaderFactory() {
        return new JavelinReaderFactory();
    }

    @Override
    public Statistics estimateStatistics() {
        long rows;
        long bytes = 0;
        try (Dataset ds = Datasets.open(table.uri, options)) {
            List<FragmentInfo> fragments = ds.loadFragments().block();
            rows = fragments.stream().mapToLong(FragmentInfo::liveRows).sum();
            for (FragmentInfo f : fragments) {
                bytes += f.fragment().getFilesList().stream().mapToLong(d -> d.getFileSizeBytes()).sum();
            }
        }
        long r = rows;
        long s = Math.max(bytes, 1);
        return new Statistics() {
            @Override
            public OptionalLong sizeInBytes() {
                return OptionalLong.of(s);
            }

            @Override
            public OptionalLong numRows() {
                return filters.isEmpty() ? OptionalLong.of(r) : OptionalLong.empty();
            }
        };
    }
}
