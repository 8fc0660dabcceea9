package io.javelin.spark;

import java.util.Map;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code spark.read.format("javelin").load(uri)} and {@code df.write.format("javelin").mode(append|overwrite).save(uri)}
 * on a dataset path or store URI; options are those of {@link JavelinOptions}.
 */
public final class JavelinDataSource implements TableProvider, DataSourceRegister {

    @Override
    public String shortName() {
        return "javelin";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return JavelinTable.load(uri(options), uri(options), JavelinOptions.parse(options.asCaseSensitiveMap()), null).schema();
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        if (partitioning.length > 0) {
            throw new JavelinSparkException("Lance datasets are not partitioned; remove partitionBy");
        }
        String uri = uri(new CaseInsensitiveStringMap(properties));
        return JavelinTable.load(uri, uri, JavelinOptions.parse(properties), schema);
    }

    @Override
    public boolean supportsExternalMetadata() {
        return true; // a write may create the dataset with the DataFrame's schema
    }

    private static String uri(CaseInsensitiveStringMap options) {
        String path = options.get(JavelinOptions.PATH);
        if (path == null || path.isBlank()) {
            throw new JavelinSparkException("A Lance dataset path is required: load(uri) / save(uri) or option(\"path\", uri)");
        }
        return path;
    }
}
