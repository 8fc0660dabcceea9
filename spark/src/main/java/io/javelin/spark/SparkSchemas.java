package io.javelin.spark;

import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils;

/**
 * Arrow ↔ Spark schemas through Spark's own mapping, so that Spark's {@code ArrowColumnVector} (reads) and
 * {@code ArrowWriter} (writes) accept the vectors: the types Spark maps are exactly those it can read and write.
 */
final class SparkSchemas {

    /** Timestamps written from Spark are instants; Lance stores them as microseconds in UTC. */
    static final String TIME_ZONE = "UTC";

    private SparkSchemas() {
    }

    static StructType toSpark(Schema arrow) {
        List<StructField> fields = new ArrayList<>();
        for (Field f : arrow.getFields()) {
            DataType t;
            try {
                t = ArrowUtils.fromArrowField(f);
            } catch (RuntimeException e) {
                throw new JavelinSparkException("Column '" + f.getName() + "' has Arrow type " + f.getType()
                        + ", which Spark's Arrow vectors cannot represent", e);
            }
            fields.add(new StructField(f.getName(), t, f.isNullable(), Metadata.empty()));
        }
        return new StructType(fields.toArray(StructField[]::new));
    }

    static Schema toArrow(StructType spark) {
        try {
            return ArrowUtils.toArrowSchema(spark, TIME_ZONE, true, false);
        } catch (RuntimeException e) {
            throw new JavelinSparkException("Spark schema " + spark.simpleString() + " has no Arrow equivalent: " + e.getMessage(), e);
        }
    }
}
