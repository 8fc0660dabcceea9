package io.javelin.encoding.writer.v21;

import io.javelin.encoding.writer.ColumnWriters;
import io.javelin.encoding.writer.EncodedPage;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.WriteOptions;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/** The leaf columns of a 2.1/2.2 file (one per leaf field in DFS order). */
public final class StructuralColumns implements ColumnWriters {
    private final List<StructuralColumn> columns = new ArrayList<>();
    private final int[] topOf;
    private List<Integer> last = List.of();

    public StructuralColumns(Schema schema, WriteOptions options) {
        List<Integer> tops = new ArrayList<>();
        int top = 0;
        for (Field f : schema.getFields()) {
            for (LeafPath p : LeafPath.of(f, options.version() != LanceFileVersion.V2_1)) {
                columns.add(new StructuralColumn(p, columns.size(), options));
                tops.add(top);
            }
            top++;
        }
        topOf = tops.stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public int numColumns() {
        return columns.size();
    }

    @Override
    public List<EncodedPage> append(VectorSchemaRoot batch) {
        List<EncodedPage> pages = new ArrayList<>();
        List<Integer> cols = new ArrayList<>();
        int n = batch.getRowCount();
        for (int c = 0; c < columns.size(); c++) {
            FieldVector v = batch.getVector(topOf[c]);
            if (v.getValueCount() < n) {
                throw new io.javelin.encoding.writer.SchemaMismatchException("Column " + v.getName() + " has "
                        + v.getValueCount() + " values, the batch has " + n + " rows");
            }
            for (EncodedPage p : columns.get(c).append(v, 0, n)) {
                pages.add(p);
                cols.add(c);
            }
        }
        last = cols;
        return pages;
    }

    @Override
    public List<EncodedPage> finish() {
        List<EncodedPage> pages = new ArrayList<>();
        List<Integer> cols = new ArrayList<>();
        for (StructuralColumn c : columns) {
            if (c.hasData()) {
                pages.add(c.flush());
                cols.add(c.columnIndex());
            }
        }
        last = cols;
        return pages;
    }

    @Override
    public List<Integer> lastColumns() {
        return last;
    }
}
