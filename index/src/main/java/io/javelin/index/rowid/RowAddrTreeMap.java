package io.javelin.index.rowid;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.RowFilter;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.roaringbitmap.RoaringBitmap;

/**
 * A set of 64-bit row addresses ({@code fragment << 32 | offset}) kept as one 32-bit Roaring
 * bitmap per fragment, with "the whole fragment" as a distinct state — Lance's
 * {@code RowAddrTreeMap} (formerly {@code RowIdTreeMap}).
 *
 * <p>Two serializations:
 * <ul>
 *   <li>{@link #serialize()}: Lance's RowAddrTreeMap bytes (Bitmap/LabelList {@code bitmaps},
 *       zonemap/bloom null bitmaps): {@code u32 LE num_fragments}, then per fragment ascending
 *       {@code u32 LE fragment_id, u32 LE size, size bytes of portable RoaringBitmap}; size 0 means
 *       the whole fragment.</li>
 *   <li>{@link #serializeTreemap()}: roaring-rs {@code RoaringTreemap} (NGram postings, FRI):
 *       {@code u64 LE count}, then per high key {@code u32 LE high, portable RoaringBitmap}; cannot
 *       hold whole fragments.</li>
 * </ul>
 * Bitmaps are written without run containers (Lance 7 writes none). Not thread-safe while mutated;
 * treat finished sets as immutable.
 */
public final class RowAddrTreeMap implements RowFilter {

    private final TreeMap<Integer, RoaringBitmap> fragments; // null value = whole fragment; keys compared unsigned

    public RowAddrTreeMap() {
        this.fragments = new TreeMap<>(Integer::compareUnsigned);
    }

    public static RowAddrTreeMap of(long... rows) {
        RowAddrTreeMap m = new RowAddrTreeMap();
        for (long r : rows) {
            m.add(r);
        }
        return m;
    }

    public static int fragment(long row) {
        return (int) (row >>> 32);
    }

    public static long address(int fragment, int offset) {
        return ((long) fragment << 32) | (offset & 0xFFFFFFFFL);
    }

    public void add(long row) {
        int f = fragment(row);
        if (fragments.containsKey(f) && fragments.get(f) == null) {
            return;
        }
        fragments.computeIfAbsent(f, k -> new RoaringBitmap()).add((int) row);
    }

    /** Adds {@code [start, end)}; both in the same fragment. */
    public void addRange(long start, long end) {
        if (end <= start) {
            return;
        }
        int f = fragment(start);
        if (fragment(end - 1) != f) {
            throw new IllegalArgumentException("Range crosses fragments: " + start + ".." + end);
        }
        if (fragments.containsKey(f) && fragments.get(f) == null) {
            return;
        }
        fragments.computeIfAbsent(f, k -> new RoaringBitmap()).add(start & 0xFFFFFFFFL, ((end - 1) & 0xFFFFFFFFL) + 1);
    }

    public void addFullFragment(int fragment) {
        fragments.put(fragment, null);
    }

    public boolean isFullFragment(int fragment) {
        return fragments.containsKey(fragment) && fragments.get(fragment) == null;
    }

    public boolean contains(long row) {
        int f = fragment(row);
        if (!fragments.containsKey(f)) {
            return false;
        }
        RoaringBitmap b = fragments.get(f);
        return b == null || b.contains((int) row);
    }

    @Override
    public boolean allows(long rowId) {
        return contains(rowId);
    }

    public boolean isEmpty() {
        for (RoaringBitmap b : fragments.values()) {
            if (b == null || !b.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Number of rows, or -1 when a whole fragment (of unknown size) is included. */
    public long cardinality() {
        long n = 0;
        for (RoaringBitmap b : fragments.values()) {
            if (b == null) {
                return -1;
            }
            n += b.getLongCardinality();
        }
        return n;
    }

    /** All row addresses ascending; fails on whole fragments (their size is not known here). */
    public long[] toArray() {
        long card = cardinality();
        if (card < 0) {
            throw new IllegalStateException("Cannot enumerate a set that contains whole fragments");
        }
        long[] out = new long[(int) card];
        int i = 0;
        for (Map.Entry<Integer, RoaringBitmap> e : fragments.entrySet()) {
            long hi = (long) e.getKey() << 32;
            var it = e.getValue().getIntIterator();
            while (it.hasNext()) {
                out[i++] = hi | (it.next() & 0xFFFFFFFFL);
            }
        }
        return out;
    }

    public RowAddrTreeMap copy() {
        RowAddrTreeMap m = new RowAddrTreeMap();
        fragments.forEach((k, v) -> m.fragments.put(k, v == null ? null : v.clone()));
        return m;
    }

    public static RowAddrTreeMap or(RowAddrTreeMap a, RowAddrTreeMap b) {
        RowAddrTreeMap out = a.copy();
        b.fragments.forEach((f, bb) -> {
            if (bb == null) {
                out.fragments.put(f, null);
            } else if (!out.fragments.containsKey(f)) {
                out.fragments.put(f, bb.clone());
            } else if (out.fragments.get(f) != null) {
                out.fragments.get(f).or(bb);
            }
        });
        return out;
    }

    public static RowAddrTreeMap and(RowAddrTreeMap a, RowAddrTreeMap b) {
        RowAddrTreeMap out = new RowAddrTreeMap();
        a.fragments.forEach((f, ab) -> {
            if (!b.fragments.containsKey(f)) {
                return;
            }
            RoaringBitmap bb = b.fragments.get(f);
            if (ab == null) {
                out.fragments.put(f, bb == null ? null : bb.clone());
            } else if (bb == null) {
                out.fragments.put(f, ab.clone());
            } else {
                RoaringBitmap x = RoaringBitmap.and(ab, bb);
                if (!x.isEmpty()) {
                    out.fragments.put(f, x);
                }
            }
        });
        return out;
    }

    /** {@code a \ b}; a whole fragment in {@code a} minus a partial one in {@code b} is not representable. */
    public static RowAddrTreeMap andNot(RowAddrTreeMap a, RowAddrTreeMap b) {
        RowAddrTreeMap out = new RowAddrTreeMap();
        a.fragments.forEach((f, ab) -> {
            if (!b.fragments.containsKey(f)) {
                out.fragments.put(f, ab == null ? null : ab.clone());
                return;
            }
            RoaringBitmap bb = b.fragments.get(f);
            if (bb == null) {
                return;
            }
            if (ab == null) {
                throw new IllegalStateException("Cannot subtract rows from whole fragment " + Integer.toUnsignedString(f));
            }
            RoaringBitmap x = RoaringBitmap.andNot(ab, bb);
            if (!x.isEmpty()) {
                out.fragments.put(f, x);
            }
        });
        return out;
    }

    // ------------------------------------------------------------------ Lance RowAddrTreeMap bytes

    public byte[] serialize() {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bos);
            out.writeInt(Integer.reverseBytes(fragments.size()));
            for (Map.Entry<Integer, RoaringBitmap> e : fragments.entrySet()) {
                out.writeInt(Integer.reverseBytes(e.getKey()));
                if (e.getValue() == null) {
                    out.writeInt(0);
                } else {
                    RoaringBitmap b = e.getValue();
                    b.removeRunCompression();
                    out.writeInt(Integer.reverseBytes(b.serializedSizeInBytes()));
                    b.serialize(out);
                }
            }
            out.flush();
            return bos.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RowAddrTreeMap deserialize(byte[] bytes, String resource) {
        return deserialize(ByteBuffer.wrap(bytes), resource);
    }

    public static RowAddrTreeMap deserialize(ByteBuffer in, String resource) {
        ByteBuffer buf = in.slice().order(ByteOrder.LITTLE_ENDIAN);
        try {
            CorruptIndexException.check(buf.remaining() >= 4, resource, "RowAddrTreeMap truncated: %d bytes", buf.remaining());
            long count = Integer.toUnsignedLong(buf.getInt());
            CorruptIndexException.check(count * 8 <= buf.remaining(), resource, "RowAddrTreeMap claims %d fragments in %d bytes",
                    count, buf.remaining());
            RowAddrTreeMap m = new RowAddrTreeMap();
            Integer prev = null;
            for (long i = 0; i < count; i++) {
                CorruptIndexException.check(buf.remaining() >= 8, resource, "RowAddrTreeMap truncated in fragment %d", i);
                int frag = buf.getInt();
                long size = Integer.toUnsignedLong(buf.getInt());
                CorruptIndexException.check(prev == null || Integer.compareUnsigned(prev, frag) < 0, resource,
                        "RowAddrTreeMap fragments not ascending: %s then %s", prev == null ? "" : Integer.toUnsignedString(prev),
                        Integer.toUnsignedString(frag));
                prev = frag;
                if (size == 0) {
                    m.fragments.put(frag, null);
                    continue;
                }
                CorruptIndexException.check(size <= buf.remaining(), resource, "RowAddrTreeMap bitmap of %d bytes, %d left",
                        size, buf.remaining());
                ByteBuffer slice = buf.slice(buf.position(), (int) size);
                m.fragments.put(frag, readBitmap(slice, (int) size, resource));
                buf.position(buf.position() + (int) size);
            }
            return m;
        } catch (CorruptIndexException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CorruptIndexException(resource, "Malformed RowAddrTreeMap: " + e, e);
        }
    }

    private static RoaringBitmap readBitmap(ByteBuffer slice, int size, String resource) {
        RoaringBitmap b = new RoaringBitmap();
        try {
            b.deserialize(slice);
        } catch (IOException | RuntimeException e) {
            throw new CorruptIndexException(resource, "Malformed Roaring bitmap: " + e, e);
        }
        CorruptIndexException.check(b.serializedSizeInBytes() == size, resource,
                "Roaring bitmap occupies %d bytes but its frame says %d", b.serializedSizeInBytes(), size);
        return b;
    }

    // ------------------------------------------------------------------ roaring-rs RoaringTreemap bytes

    public byte[] serializeTreemap() {
        try {
            ByteArrayOutputStream bos = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bos);
            List<Map.Entry<Integer, RoaringBitmap>> nonEmpty = new ArrayList<>();
            for (Map.Entry<Integer, RoaringBitmap> e : fragments.entrySet()) {
                if (e.getValue() == null) {
                    throw new IllegalStateException("A RoaringTreemap cannot hold whole fragments");
                }
                if (!e.getValue().isEmpty()) {
                    nonEmpty.add(e);
                }
            }
            out.writeLong(Long.reverseBytes(nonEmpty.size()));
            for (Map.Entry<Integer, RoaringBitmap> e : nonEmpty) {
                out.writeInt(Integer.reverseBytes(e.getKey()));
                RoaringBitmap b = e.getValue();
                b.removeRunCompression();
                b.serialize(out);
            }
            out.flush();
            return bos.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public static RowAddrTreeMap deserializeTreemap(byte[] bytes, String resource) {
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        try {
            CorruptIndexException.check(buf.remaining() >= 8, resource, "RoaringTreemap truncated: %d bytes", buf.remaining());
            long count = buf.getLong();
            CorruptIndexException.check(count >= 0 && count * 12 <= buf.remaining(), resource,
                    "RoaringTreemap claims %d bitmaps in %d bytes", count, buf.remaining());
            RowAddrTreeMap m = new RowAddrTreeMap();
            for (long i = 0; i < count; i++) {
                CorruptIndexException.check(buf.remaining() >= 4, resource, "RoaringTreemap truncated at bitmap %d", i);
                int hi = buf.getInt();
                RoaringBitmap b = new RoaringBitmap();
                ByteBuffer slice = buf.slice();
                b.deserialize(slice);
                buf.position(buf.position() + b.serializedSizeInBytes());
                m.fragments.put(hi, b);
            }
            return m;
        } catch (CorruptIndexException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new CorruptIndexException(resource, "Malformed RoaringTreemap: " + e, e);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RowAddrTreeMap m && fragments.equals(m.fragments);
    }

    @Override
    public int hashCode() {
        return Objects.hash(fragments);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("RowAddrTreeMap{");
        fragments.forEach((f, b) -> sb.append(Integer.toUnsignedString(f)).append('=').append(b == null ? "ALL" : b.toString()).append(' '));
        return sb.append('}').toString();
    }
}
