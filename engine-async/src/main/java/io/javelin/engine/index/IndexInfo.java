package io.javelin.engine.index;

import io.javelin.index.IndexType;
import io.javelin.tx.pb.IndexMetadata;
import java.util.List;
import java.util.UUID;
import org.roaringbitmap.RoaringBitmap;

/**
 * One index segment of a dataset version, as the manifest's index section describes it.
 *
 * @param name           logical index name (segments with the same name form one index)
 * @param uuid           segment id; files under {@code _indices/{uuid}/}
 * @param indexType      display type as Lance's {@code describeIndices} shows it ({@code BTree}, {@code Bitmap},
 *                       {@code IVF_PQ}, ...); {@code Unknown(<type url>)} for types we do not know
 * @param type           the details family (null when unknown)
 * @param columns        indexed column names (from the field ids)
 * @param fieldIds       the manifest's field ids
 * @param datasetVersion version the segment was built from
 * @param indexVersion   per-type format version
 * @param fragments      fragment ids the segment covers
 * @param readable       whether this engine can open it ({@code index_version} not newer than we read)
 * @param metadata       the raw manifest entry
 */
public record IndexInfo(String name, UUID uuid, String indexType, IndexType type, List<String> columns, List<Integer> fieldIds,
                        long datasetVersion, int indexVersion, RoaringBitmap fragments, boolean readable, IndexMetadata metadata) {

    /** Whether this is a vector (IVF_*) segment. */
    public boolean isVector() {
        return type == IndexType.VECTOR;
    }

    /** Whether this is a scalar segment the filter planner can use (BTree, Bitmap, ZoneMap, Bloom filter). */
    public boolean isScalarLookup() {
        return type == IndexType.BTREE || type == IndexType.BITMAP || type == IndexType.ZONEMAP || type == IndexType.BLOOM_FILTER;
    }

    /** The first indexed column. */
    public String column() {
        return columns.isEmpty() ? null : columns.get(0);
    }

    @Override
    public String toString() {
        return name + " (" + indexType + " on " + String.join(",", columns) + ", uuid " + uuid + ", v" + datasetVersion
                + ", fragments " + fragments + ")";
    }
}
