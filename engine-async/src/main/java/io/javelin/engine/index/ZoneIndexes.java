package io.javelin.engine.index;

import com.google.protobuf.Any;
import io.javelin.index.IndexType;
import io.javelin.index.pb.BloomFilterIndexDetails;
import io.javelin.index.pb.ZoneMapIndexDetails;
import io.javelin.index.scalar.BloomFilterIndex;
import io.javelin.index.scalar.ZoneMapIndex;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;

/**
 * Builds the zone-based indexes (ZoneMap, Bloom filter) from a column's live values and their row
 * addresses in address order, as Lance 7.0.0 writes them: zones of {@code rows_per_zone} (8192) /
 * {@code bloomfilter_item} (8192) live rows that never cross a fragment, one file, empty details
 * ({@code /lance.table.ZoneMapIndexDetails}, {@code /lance.index.pb.BloomFilterIndexDetails}), index_version 0.
 */
final class ZoneIndexes {

    /** The written batch (caller closes), its file name and the manifest details. */
    record Built(String file, VectorSchemaRoot batch, Any details, int indexVersion) {
    }

    private ZoneIndexes() {
    }

    static Built build(IndexKind kind, FieldVector values, long[] addrs, BufferAllocator alloc) {
        List<ZoneMapIndex.FragmentValues> frags = new ArrayList<>();
        List<FieldVector> slices = new ArrayList<>();
        try {
            int n = values.getValueCount();
            int start = 0;
            while (start < n) {
                long frag = addrs[start] >>> 32;
                int end = start;
                while (end < n && (addrs[end] >>> 32) == frag) {
                    end++;
                }
                TransferPair tp = values.getTransferPair(alloc);
                tp.splitAndTransfer(start, end - start);
                FieldVector slice = (FieldVector) tp.getTo();
                slices.add(slice);
                long[] offsets = new long[end - start];
                for (int i = start; i < end; i++) {
                    offsets[i - start] = addrs[i] & 0xFFFF_FFFFL;
                }
                frags.add(new ZoneMapIndex.FragmentValues(frag, slice, offsets));
                start = end;
            }
            if (frags.isEmpty()) {
                throw new IllegalArgumentException("No rows to index");
            }
            if (kind == IndexKind.ZONEMAP) {
                ZoneMapIndex z = ZoneMapIndex.build(frags, ZoneMapIndex.DEFAULT_ROWS_PER_ZONE);
                return new Built(ZoneMapIndex.FILE, z.toBatch(alloc), IndexType.pack(ZoneMapIndexDetails.getDefaultInstance()),
                        IndexType.ZONEMAP.writeVersion());
            }
            BloomFilterIndex b = BloomFilterIndex.build(frags, BloomFilterIndex.DEFAULT_ITEMS, BloomFilterIndex.DEFAULT_PROBABILITY);
            return new Built(BloomFilterIndex.FILE, b.toBatch(alloc), IndexType.pack(BloomFilterIndexDetails.getDefaultInstance()),
                    IndexType.BLOOM_FILTER.writeVersion());
        } finally {
            slices.forEach(FieldVector::close);
        }
    }
}
