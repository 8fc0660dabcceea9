package io.javelin.spark;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.read.InputPartition;

/**
 * One fragment of one version to scan on an executor. {@code countOnly}: Spark needs no column (only row
 * counts), so one column is scanned for its batch sizes and none is returned. {@code orderBy}: a pushed top-N
 * (the fragment's first {@code limit} rows in that order), or null.
 */
record FragmentPartition(String uri, Map<String, String> storage, long version, long fragmentId, List<String> columns,
                         boolean countOnly, String filter, long limit, List<String> orderBy, int batchSize,
                         long physicalRows) implements InputPartition {

    FragmentPartition {
        storage = Map.copyOf(storage);
        columns = List.copyOf(columns);
    }
}
