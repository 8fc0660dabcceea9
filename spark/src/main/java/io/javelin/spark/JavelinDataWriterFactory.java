package io.javelin.spark;

import io.javelin.engine.WriteMode;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.DataWriterFactory;
import org.apache.spark.sql.types.StructType;

/** Shipped to executors: where and how to write (the Arrow schema travels as its JSON form). */
record JavelinDataWriterFactory(String uri, Map<String, String> storage, WriteMode mode, String arrowSchemaJson, StructType spark,
                                int batchRows, long maxRowsPerFile) implements DataWriterFactory {

    JavelinDataWriterFactory {
        storage = Map.copyOf(storage);
    }

    @Override
    public DataWriter<InternalRow> createWriter(int partitionId, long taskId) {
        try {
            return new FragmentWriter(this, Schema.fromJSON(arrowSchemaJson), partitionId, taskId);
        } catch (java.io.IOException e) {
            throw new JavelinSparkException("Unreadable Arrow schema for " + uri, e);
        }
    }
}
