package io.javelin.engine.filter;

/** The rows of one batch for which a filter evaluated to TRUE (NULL and FALSE rows are not selected). */
public final class Selection {

    private final long[] words;
    private final int rows;
    private final int selected;

    Selection(long[] words, int rows) {
        this.words = words;
        this.rows = rows;
        this.selected = Bits.count(words);
    }

    public int rowCount() {
        return rows;
    }

    public int selectedCount() {
        return selected;
    }

    public boolean isSelected(int row) {
        return Bits.get(words, row);
    }

    /** The selected row positions in ascending order. */
    public int[] positions() {
        int[] out = new int[selected];
        int k = 0;
        for (int w = 0; w < words.length; w++) {
            long bits = words[w];
            while (bits != 0) {
                out[k++] = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
            }
        }
        return out;
    }
}
