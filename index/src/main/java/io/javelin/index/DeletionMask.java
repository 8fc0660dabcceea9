package io.javelin.index;

import io.javelin.index.rowid.RowAddrTreeMap;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * Rows an index result must never return (Lance's prefilter rules, docs §6.2): rows listed in
 * their fragment's deletion file, and every row of a fragment that the segment covers
 * ({@code fragment_bitmap}) but the manifest no longer has. Used as the {@code deleted} filter of
 * vector queries and to mask scalar results.
 */
public final class DeletionMask implements RowFilter {

    private final Map<Integer, RoaringBitmap> deletedOffsets;
    private final RoaringBitmap removedFragments;

    /**
     * @param deletedOffsets   fragment id → deleted row offsets (from deletion files)
     * @param indexFragments   the segment's {@code fragment_bitmap}
     * @param liveFragments    fragment ids present in the manifest
     */
    public DeletionMask(Map<Integer, RoaringBitmap> deletedOffsets, RoaringBitmap indexFragments, RoaringBitmap liveFragments) {
        this.deletedOffsets = Map.copyOf(deletedOffsets);
        this.removedFragments = RoaringBitmap.andNot(indexFragments, liveFragments);
    }

    /** True when {@code row} must be masked out ({@link RowFilter} "allows" = "is deleted"). */
    @Override
    public boolean allows(long row) {
        int frag = RowAddrTreeMap.fragment(row);
        if (removedFragments.contains(frag)) {
            return true;
        }
        RoaringBitmap d = deletedOffsets.get(frag);
        return d != null && d.contains((int) row);
    }

    /**
     * {@code rows} without the masked rows. A whole fragment in {@code rows} that has deletions
     * cannot be enumerated here and throws {@link IllegalStateException} (never a superset).
     */
    public RowAddrTreeMap apply(RowAddrTreeMap rows) {
        RowAddrTreeMap blocked = new RowAddrTreeMap();
        removedFragments.forEach((int f) -> blocked.addFullFragment(f));
        deletedOffsets.forEach((f, offs) -> {
            if (!removedFragments.contains(f)) {
                offs.forEach((int o) -> blocked.add(RowAddrTreeMap.address(f, o)));
            }
        });
        return RowAddrTreeMap.andNot(rows, blocked);
    }

}
