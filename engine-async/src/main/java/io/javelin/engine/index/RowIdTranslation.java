package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.index.CorruptIndexException;
import io.javelin.index.IndexType;
import io.javelin.index.rowid.RowAddrTreeMap;
import java.util.Arrays;
import reactor.core.publisher.Mono;

/**
 * Index results to row addresses. On a dataset with stable row ids, BTree / Bitmap / LabelList segments
 * store row ids (Lance writes {@code _rowid}), translated here through the fragments' row-id sequences;
 * ZoneMap and Bloom filter results are always addresses ({@code results_are_row_addresses}).
 */
final class RowIdTranslation {

    private RowIdTranslation() {
    }

    static Mono<RowAddrTreeMap> toAddresses(Dataset ds, IndexInfo idx, RowAddrTreeMap rows) {
        if (!ds.hasStableRowIds() || idx.type() == IndexType.ZONEMAP || idx.type() == IndexType.BLOOM_FILTER) {
            return Mono.just(rows);
        }
        if (rows.cardinality() < 0) {
            return Mono.error(new CorruptIndexException(idx.name(), "whole-fragment entries in a row-id index"));
        }
        long[] ids = rows.toArray();
        Arrays.sort(ids);
        return ds.rowAddressesOfIds(ids).map(addrs -> {
            RowAddrTreeMap out = new RowAddrTreeMap();
            for (long a : addrs) {
                out.add(a);
            }
            return out;
        });
    }
}
