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
        if (rep == null) {
            if (numLevels != numRows) {
                throw new CorruptFileException(resource, -1, "Page has " + numLevels + " levels for " + numRows + " rows");
            }
            rowLevelStart = null; // level i is row i
        } else {
            rowLevelStart = new int[numRows + 1];
            int row = 0;
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
        if (def == null || rd.maxVisibleDef >= rd.maxDef) {
            // every level has a value slot (no list layers, or no def levels at all)
            visibleBefore = null;
            if (numLevels != values.count()) {
                throw new CorruptFileException(resource, -1, "Page has " + numLevels + " visible levels but " + values.count()
                        + " values");
            }
            return;
        }
        visibleBefore = new int[numLevels + 1];
        int v = 0;
        for (int i = 0; i < numLevels; i++) {
            visibleBefore[i] = v;
            if (rd.visible(Short.toUnsignedInt(def[i]))) {
                v++;
            }
        }
        visibleBefore[numLevels] = v;
        if (v != values.count()) {
            throw new CorruptFileException(resource, -1, "Page has " + v + " visible levels but " + values.count() + " values");
        }
    }

    /** The first level of page-local row {@code row} ({@code numRows} gives {@code numLevels}). */
    int levelStart(int row) {
        return rowLevelStart == null ? row : rowLevelStart[row];
    }

    /** Values before level {@code level}. */
    int visibleBefore(int level) {
        return visibleBefore == null ? level : visibleBefore[level];
    }
}
