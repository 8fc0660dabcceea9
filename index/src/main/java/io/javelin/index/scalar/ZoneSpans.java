package io.javelin.index.scalar;

import io.javelin.index.rowid.RowAddrTreeMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;

/**
 * Turns the zones of a zone-based index (ZoneMap, Bloom filter) into candidate row addresses.
 *
 * <p>What {@code zone_start} means differs between Lance versions once rows were deleted before the
 * build: older writers count live rows (cumulative, so offsets shift past a deletion), newer ones (Lance
 * 7.0.0, verified by interop: 256 live rows after deleting every 7th span {@code 0+299}) record the first
 * row's physical offset and the span to the last. Both agree when a fragment's zones tile
 * {@code [0, physical_rows)} exactly, so only then are zone ranges used as addresses; otherwise a
 * fragment with any matching zone is a candidate as a whole. A fragment none of whose zones match
 * is pruned either way: every row that existed at build time is in some zone.
 */
public final class ZoneSpans {

    /** One zone: its fragment, its range as written, and whether the query may match inside it. */
    public record Span(long fragmentId, long start, long length, boolean hit) {
    }

    private ZoneSpans() {
    }

    /**
     * @param physicalRows fragment id → physical rows (-1 when unknown); null trusts every range
     */
    public static RowAddrTreeMap candidates(List<Span> spans, LongUnaryOperator physicalRows) {
        RowAddrTreeMap out = new RowAddrTreeMap();
        if (physicalRows == null) {
            for (Span s : spans) {
                if (s.hit()) {
                    long base = s.fragmentId() << 32;
                    out.addRange(base + s.start(), base + s.start() + s.length());
                }
            }
            return out;
        }
        Map<Long, List<Span>> byFragment = new HashMap<>();
        for (Span s : spans) {
            byFragment.computeIfAbsent(s.fragmentId(), k -> new ArrayList<>()).add(s);
        }
        for (var e : byFragment.entrySet()) {
            List<Span> zs = e.getValue();
            if (zs.stream().noneMatch(Span::hit)) {
                continue;
            }
            long frag = e.getKey();
            long base = frag << 32;
            if (tiles(zs, physicalRows.applyAsLong(frag))) {
                for (Span s : zs) {
                    if (s.hit()) {
                        out.addRange(base + s.start(), base + s.start() + s.length());
                    }
                }
            } else {
                out.addFullFragment((int) frag);
            }
        }
        return out;
    }

    /** Whether the zones cover {@code [0, rows)} back to back, without gaps or overlaps. */
    static boolean tiles(List<Span> zones, long rows) {
        if (rows < 0) {
            return false;
        }
        List<Span> sorted = new ArrayList<>(zones);
        sorted.sort(Comparator.comparingLong(Span::start));
        long next = 0;
        for (Span s : sorted) {
            if (s.start() != next) {
                return false;
            }
            next = s.start() + s.length();
        }
        return next == rows;
    }
}
