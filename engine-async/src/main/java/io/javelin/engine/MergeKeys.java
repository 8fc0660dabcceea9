package io.javelin.engine;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.Text;

/**
 * Merge-insert join keys with Lance's arity-dependent NULL semantics: a single-column key treats NULL as
 * equal to NULL; in a composite key SQL equality holds, so a key with any NULL matches nothing.
 */
final class MergeKeys {

    private final List<String> on;
    /** One integer key column: keys are read as longs, no boxing (see {@link KeyIndex}). */
    private final boolean integral;

    MergeKeys(List<String> on, org.apache.arrow.vector.types.pojo.Schema dataset) {
        this.on = List.copyOf(on);
        this.integral = on.size() == 1 && dataset.findField(on.get(0)).getType() instanceof org.apache.arrow.vector.types.pojo.ArrowType.Int;
    }

    boolean integral() {
        return integral;
    }

    /** A hash of row {@code r}'s key equal for equal keys on both sides; {@code NO_MATCH} for a key that matches nothing. */
    int hash(List<FieldVector> keys, int r) {
        if (integral) {
            FieldVector v = keys.get(0);
            return v.isNull(r) ? 0x5bd1e995 : Long.hashCode(((org.apache.arrow.vector.BaseIntVector) v).getValueAsLong(r) * 0x9E3779B97F4A7C15L);
        }
        List<Object> k = key(keys, r);
        return k == null ? NO_MATCH : k.hashCode();
    }

    static final int NO_MATCH = Integer.MIN_VALUE;

    List<String> columns() {
        return on;
    }

    List<FieldVector> vectors(VectorSchemaRoot r) {
        List<FieldVector> out = new ArrayList<>(on.size());
        for (String k : on) {
            out.add(r.getVector(k));
        }
        return out;
    }

    /** The key of row {@code r}; null when it can match nothing (a composite key with a NULL). */
    List<Object> key(List<FieldVector> keys, int r) {
        Object[] k = new Object[keys.size()];
        for (int i = 0; i < k.length; i++) {
            Object o = keys.get(i).getObject(r);
            if (o == null) {
                if (k.length > 1) {
                    return null;
                }
                continue; // single column: NULL is a value like any other
            }
            k[i] = switch (o) {
                case Text t -> t.toString();
                case byte[] bytes -> ByteBuffer.wrap(bytes);
                default -> o;
            };
        }
        return Arrays.asList(k);
    }

    /**
     * The partition of a key's {@link #hash} at split level {@code level} (each level mixes differently, so a partition
     * split again spreads out); keys that match nothing go to partition 0.
     */
    static int partition(int hash, int level, int fanOut) {
        if (hash == NO_MATCH) {
            return 0;
        }
        int h = hash ^ (level * 0x9E3779B9);
        h *= 0x85EBCA6B;
        h ^= h >>> 13;
        h *= 0xC2B2AE35;
        h ^= h >>> 16;
        return Math.floorMod(h, fanOut);
    }

    String describe(List<Object> k) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < on.size(); i++) {
            parts.add(on.get(i) + " = " + k.get(i));
        }
        return String.join(", ", parts);
    }
}
