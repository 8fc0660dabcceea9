package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Values;

/**
 * The decoded levels and values of some rows of one leaf column (a whole page, or the chunks a take
 * needed). {@code rep}/{@code def} are null when absent.
 */
public final class LeafPage {

    final int numRows;
    final int numLevels;
    final short[] rep;
    final short[] def;
    final Values values;
    final int[] rowLevelStart;
    final int[] visibleBefore;

    LeafPage(String resource, RepDef rd, int numRows, int numLevels, short[] rep, short[] def, Values values) {
        this.numRows = numRows;
        this.numLevels = numLevels;
        this.rep = rep;
        this.def = def;
        this.values = values;
        rowLevelStart = new int[numRows + 1];
        int row = 0;
        if (rep == null) {
            if (numLevels != numRows) {
                throw new CorruptFileException(resource, -1, "Page has " + numLevels + " levels for " + numRows + " rows");
            }
            for (int i = 0; i <= numRows; i++) {
                rowLevelStart[i] = i;
            }
        } else {
            int maxRep = rd.maxRep();
            for (int i = 0; i < numLevels; i++) {
                if (rep[i] == maxRep) {
                    if (row >= numRows) {
                        throw new CorruptFileException(resource, -1, "Page has more than " + numRows + " rows");
                    }
                    rowLevelStart[row++] = i;
                }
            }
            if (row != numRows) {
                throw new CorruptFileException(resource, -1, "Page has " + row + " rows vs " + numRows + " expected");
            }
            rowLevelStart[numRows] = numLevels;
        }
        visibleBefore = new int[numLevels + 1];
        int v = 0;
        for (int i = 0; i < numLevels; i++) {
            visibleBefore[i] = v;
            if (def == null || rd.visible(Short.toUnsignedInt(def[i]))) {
                v++;
            }
        }
        visibleBefore[numLevels] = v;
        if (v != values.count()) {
            throw new CorruptFileException(resource, -1, "Page has " + v + " visible levels but " + values.count() + " values");
        }
    }
}
