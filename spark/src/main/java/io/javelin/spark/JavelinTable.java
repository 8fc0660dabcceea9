package io.javelin.spark;

import io.javelin.engine.Dataset;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.catalog.SupportsDeleteV2;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Lance dataset as a Spark table, pinned at the version it was loaded at (reads of one query see one
 * version); writes commit on top of the latest version. {@code arrowSchema} is null while the dataset does
 * not exist yet (a path write creates it).
 */
public class JavelinTable implements SupportsRead, SupportsWrite, SupportsDeleteV2, SupportsRowLevelOperations {

    private static final Set<TableCapability> CAPABILITIES = EnumSet.of(TableCapability.BATCH_READ,
            TableCapability.BATCH_WRITE, TableCapability.TRUNCATE, TableCapability.OVERWRITE_DYNAMIC);

    final String name;
    final String uri;
    final JavelinOptions options;
    final Schema arrowSchema;
    final long version;
    private final StructType schema;

    JavelinTable(String name, String uri, JavelinOptions options, Schema arrowSchema, long version, StructType schema) {
        this.name = name;
        this.uri = uri;
        this.options = options;
        this.arrowSchema = arrowSchema;
        this.version = version;
        this.schema = schema;
    }

    /** The table over the dataset at {@code uri}, or an empty one of {@code writeSchema} if it does not exist. */
    static JavelinTable load(String name, String uri, JavelinOptions options, StructType writeSchema) {
        Optional<Dataset> ds = Datasets.openIfExists(uri, options);
        if (ds.isEmpty()) {
            if (writeSchema == null) {
                throw new JavelinSparkException("No Lance dataset at " + uri);
            }
            return new JavelinTable(name, uri, options, null, -1, writeSchema);
        }
        try (Dataset d = ds.get()) {
            Schema arrow = d.schema();
            return new JavelinTable(name, uri, options.atVersion(d.version()), arrow, d.version(), SparkSchemas.toSpark(arrow));
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public StructType schema() {
        return schema;
    }

    @Override
    public Map<String, String> properties() {
        return Map.of("location", uri, "provider", "javelin", "version", Long.toString(version));
    }

    @Override
    public Set<TableCapability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap opts) {
        if (arrowSchema == null) {
            throw new JavelinSparkException("No Lance dataset at " + uri);
        }
        return new JavelinScanBuilder(this, options.overlay(opts.asCaseSensitiveMap()));
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        return new JavelinWriteBuilder(this, options.latest().overlay(info.options().asCaseSensitiveMap()), info);
    }

    /** The Javelin filter for {@code predicates} if each of them runs exactly in Javelin, else empty. */
    private Optional<String> exactFilter(Predicate[] predicates) {
        FilterTranslator tr = new FilterTranslator(schema);
        List<String> parts = new ArrayList<>();
        for (Predicate p : predicates) {
            Optional<FilterTranslator.Translation> t = tr.translate(p);
            if (t.isEmpty() || !t.get().exact()) {
                return Optional.empty();
            }
            parts.add("(" + t.get().sql() + ")");
        }
        String sql = parts.isEmpty() ? "true" : String.join(" AND ", parts);
        try {
            io.javelin.engine.filter.Predicate.compile(sql, arrowSchema);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return Optional.of(sql);
    }

    /** DELETE whose condition runs exactly in Javelin: deletion files only, no data rewritten. */
    @Override
    public boolean canDeleteWhere(Predicate[] predicates) {
        return arrowSchema != null && exactFilter(predicates).isPresent();
    }

    @Override
    public void deleteWhere(Predicate[] predicates) {
        String filter = exactFilter(predicates).orElseThrow(() -> new JavelinSparkException("DELETE condition cannot run in Javelin"));
        try (Dataset ds = Datasets.open(uri, options.latest()); Dataset next = ds.delete(filter).block()) {
            // committed: next is the new version
        }
    }

    @Override
    public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
        return () -> new CopyOnWriteOperation(this, info.command());
    }

    @Override
    public String toString() {
        return "JavelinTable[" + uri + "@" + version + "]";
    }
}
