package io.javelin.spark;

import io.javelin.engine.Dataset;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.catalog.SupportsRead;
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
public class JavelinTable implements SupportsRead, SupportsWrite {

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

    @Override
    public String toString() {
        return "JavelinTable[" + uri + "@" + version + "]";
    }
}
