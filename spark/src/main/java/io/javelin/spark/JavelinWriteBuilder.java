package io.javelin.spark;

import io.javelin.engine.WriteMode;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.SupportsDynamicOverwrite;
import org.apache.spark.sql.connector.write.SupportsTruncate;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Append by default; {@code truncate()} (INSERT OVERWRITE, {@code mode(overwrite)}) and dynamic partition
 * overwrite (Lance tables have no partitions, so it replaces everything) commit an Overwrite.
 */
final class JavelinWriteBuilder implements WriteBuilder, SupportsTruncate, SupportsDynamicOverwrite {

    private final JavelinTable table;
    private final JavelinOptions options;
    private final LogicalWriteInfo info;
    private boolean overwrite;

    JavelinWriteBuilder(JavelinTable table, JavelinOptions options, LogicalWriteInfo info) {
        this.table = table;
        this.options = options;
        this.info = info;
    }

    @Override
    public WriteBuilder truncate() {
        overwrite = true;
        return this;
    }

    @Override
    public WriteBuilder overwriteDynamicPartitions() {
        overwrite = true;
        return this;
    }

    @Override
    public Write build() {
        WriteMode mode = overwrite || table.arrowSchema == null ? WriteMode.OVERWRITE : WriteMode.APPEND;
        StructType incoming = info.schema();
        // the table's own Arrow schema (field metadata, nullability) whenever the rows have its shape
        Schema arrow = table.arrowSchema != null && sameShape(SparkSchemas.toSpark(table.arrowSchema), incoming)
                ? table.arrowSchema
                : SparkSchemas.toArrow(incoming);
        if (mode == WriteMode.APPEND && arrow != table.arrowSchema) {
            throw new JavelinSparkException("Cannot append " + incoming.simpleString() + " to " + table.uri + " with schema "
                    + table.schema().simpleString());
        }
        JavelinBatchWrite batch = new JavelinBatchWrite(table.uri, options, mode, arrow, incoming);
        return new Write() {
            @Override
            public BatchWrite toBatch() {
                return batch;
            }

            @Override
            public String description() {
                return "JavelinWrite[" + table.uri + ", " + mode + "]";
            }
        };
    }

    static boolean sameShape(StructType a, StructType b) {
        if (a.fields().length != b.fields().length) {
            return false;
        }
        for (int i = 0; i < a.fields().length; i++) {
            StructField x = a.fields()[i];
            StructField y = b.fields()[i];
            if (!x.name().equals(y.name()) || !x.dataType().catalogString().equals(y.dataType().catalogString())) {
                return false;
            }
        }
        return true;
    }
}
