package io.javelin.spark;

import io.javelin.engine.Dataset;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * {@code ALTER TABLE} as Javelin schema evolution, one commit per change: ADD COLUMN (all-NULL, no data
 * written), DROP COLUMN, RENAME COLUMN (nested paths too). Other changes are refused by name.
 */
final class TableChanges {

    private TableChanges() {
    }

    static void apply(String uri, JavelinOptions options, TableChange... changes) {
        for (TableChange c : changes) {
            try (Dataset ds = Dataset.open(uri, options.storage()).block()) {
                Dataset next = switch (c) {
                    case TableChange.AddColumn add -> {
                        if (add.fieldNames().length != 1) {
                            throw new JavelinSparkException("Adding a nested column (" + String.join(".", add.fieldNames()) + ") is not supported");
                        }
                        if (add.defaultValue() != null) {
                            throw new JavelinSparkException("ADD COLUMN with a DEFAULT is not supported");
                        }
                        StructType one = new StructType(new StructField[] {
                                new StructField(add.fieldNames()[0], add.dataType(), true, org.apache.spark.sql.types.Metadata.empty())});
                        List<Field> fields = new ArrayList<>(SparkSchemas.toArrow(one).getFields());
                        yield ds.addColumns(fields).block();
                    }
                    case TableChange.DeleteColumn del -> {
                        if (del.ifExists() && !exists(ds, del.fieldNames())) {
                            yield null;
                        }
                        yield ds.dropColumns(List.of(String.join(".", del.fieldNames()))).block();
                    }
                    case TableChange.RenameColumn ren -> ds.renameColumn(String.join(".", ren.fieldNames()), ren.newName()).block();
                    default -> throw new JavelinSparkException("ALTER TABLE change " + c.getClass().getSimpleName() + " is not supported");
                };
                if (next != null) {
                    next.close();
                }
            }
        }
    }

    private static boolean exists(Dataset ds, String[] path) {
        List<Field> fields = ds.schema().getFields();
        Field f = null;
        for (String p : path) {
            f = fields.stream().filter(x -> x.getName().equals(p)).findFirst().orElse(null);
            if (f == null) {
                return false;
            }
            fields = f.getChildren();
        }
        return true;
    }
}
