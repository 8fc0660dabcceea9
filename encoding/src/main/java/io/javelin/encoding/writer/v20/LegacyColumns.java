package io.javelin.encoding.writer.v20;

import io.javelin.encoding.writer.ColumnWriters;
import io.javelin.encoding.writer.EncodedPage;
import io.javelin.encoding.writer.WriteOptions;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/** The columns of a 2.0 file: one per field in pre-order (file-format.md §2, §4). */
public final class LegacyColumns implements ColumnWriters {
    public LegacyColumns(Schema schema, WriteOptions options) {
        throw new io.javelin.encoding.writer.UnsupportedTypeException("2.0 writer not implemented yet");
    }

    @Override
    public int numColumns() {
        return 0;
    }

    @Override
    public List<EncodedPage> append(VectorSchemaRoot batch) {
        return List.of();
    }

    @Override
    public List<EncodedPage> finish() {
        return List.of();
    }

    @Override
    public List<Integer> lastColumns() {
        return List.of();
    }
}
