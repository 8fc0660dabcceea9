package io.javelin.engine;

import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.FieldVector;

/**
 * The in-memory side of the merge join: source key → the ordinal of its first row, plus which ordinals
 * have a duplicate key (matching one of those is Lance's "ambiguous merge insert"). A single integer key
 * uses an open-addressing long → int table (no boxing); other keys a hash map of value lists.
 */
abstract class KeyIndex {

    final BitSet duplicated = new BitSet();

    static KeyIndex create(MergeKeys keys) {
        return keys.integral() ? new Longs() : new Generic(keys);
    }

    /** Records row {@code r} (of key vectors {@code kv}) as ordinal {@code ord}. */
    abstract void add(List<FieldVector> kv, int r, int ord);

    /** The ordinal of the first source row with row {@code r}'s key, or -1. */
    abstract int find(List<FieldVector> kv, int r);

    abstract String describe(List<FieldVector> kv, int r);

    boolean ambiguous(int ord) {
        return duplicated.get(ord);
    }

    private static final class Generic extends KeyIndex {
        private final MergeKeys keys;
        private final Map<List<Object>, Integer> index = new HashMap<>();

        Generic(MergeKeys keys) {
            this.keys = keys;
        }

        @Override
        void add(List<FieldVector> kv, int r, int ord) {
            List<Object> k = keys.key(kv, r);
            if (k != null) {
                Integer first = index.putIfAbsent(k, ord);
                if (first != null) {
                    duplicated.set(first);
                }
            }
        }

        @Override
        int find(List<FieldVector> kv, int r) {
            List<Object> k = keys.key(kv, r);
            Integer hit = k == null ? null : index.get(k);
            return hit == null ? -1 : hit;
        }

        @Override
        String describe(List<FieldVector> kv, int r) {
            return keys.describe(keys.key(kv, r));
        }
    }

    /** Single integer column; NULL is a key of its own (Lance: a single-column key matches NULL to NULL). */
    private static final class Longs extends KeyIndex {
        private long[] slots = new long[1024];
        private int[] ords = new int[1024];
        private int size;
        private int nullOrd = -1;
        private String name;

        @Override
        void add(List<FieldVector> kv, int r, int ord) {
            FieldVector v = kv.get(0);
            name = v.getField().getName();
            if (v.isNull(r)) {
                if (nullOrd < 0) {
                    nullOrd = ord;
                } else {
                    duplicated.set(nullOrd);
                }
                return;
            }
            if ((size + 1) * 2 > slots.length) {
                grow();
            }
            long key = ((BaseIntVector) v).getValueAsLong(r);
            int i = slot(key);
            if (ords[i] != 0) {
                duplicated.set(ords[i] - 1);
                return;
            }
            slots[i] = key;
            ords[i] = ord + 1; // 0 marks an empty slot
            size++;
        }

        @Override
        int find(List<FieldVector> kv, int r) {
            FieldVector v = kv.get(0);
            if (v.isNull(r)) {
                return nullOrd;
            }
            return ords[slot(((BaseIntVector) v).getValueAsLong(r))] - 1;
        }

        /** The slot holding {@code key}, or the empty one where it would go (linear probing). */
        private int slot(long key) {
            int mask = slots.length - 1;
            int i = (int) (mix(key) & mask);
            while (ords[i] != 0 && slots[i] != key) {
                i = (i + 1) & mask;
            }
            return i;
        }

        private static long mix(long x) {
            x *= 0x9E3779B97F4A7C15L;
            return x ^ (x >>> 29);
        }

        private void grow() {
            long[] oldSlots = slots;
            int[] oldOrds = ords;
            slots = new long[oldSlots.length * 2];
            ords = new int[oldOrds.length * 2];
            for (int i = 0; i < oldSlots.length; i++) {
                if (oldOrds[i] != 0) {
                    int j = slot(oldSlots[i]);
                    slots[j] = oldSlots[i];
                    ords[j] = oldOrds[i];
                }
            }
        }

        @Override
        String describe(List<FieldVector> kv, int r) {
            FieldVector v = kv.get(0);
            return name + " = " + (v.isNull(r) ? "null" : ((BaseIntVector) v).getValueAsLong(r));
        }
    }
}
