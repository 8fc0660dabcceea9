package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.RepDefLayer;
import io.javelin.encoding.writer.LeafValues;
import java.util.List;

/**
 * What a 2.1+ page encoder gets: final rep/def levels (null when absent), the visible values, the
 * row count, the layers (inner-most first) and the visibility bound of def levels.
 */
record PageInput(int columnIndex, short[] rep, short[] def, int numLevels, LeafValues values, long numRows,
                 long firstRow, List<RepDefLayer> layers, int maxRep, int maxVisibleDef, boolean simpleValidity) {

    boolean visible(int level) {
        return def == null || (def[level] & 0xFFFF) <= maxVisibleDef;
    }

    int numValues() {
        return values.count();
    }

    /** True when every visible value is null. */
    boolean allNull() {
        if (def == null) {
            return false;
        }
        for (int i = 0; i < numLevels; i++) {
            int d = def[i] & 0xFFFF;
            if (d == 0) {
                return false;
            }
        }
        return true;
    }
}
