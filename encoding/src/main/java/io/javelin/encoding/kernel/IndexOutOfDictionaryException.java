package io.javelin.encoding.kernel;

/** A dictionary index is at least the dictionary size. */
public final class IndexOutOfDictionaryException extends KernelInputException {

    private final long index;
    private final long dictionaryCount;

    public IndexOutOfDictionaryException(long position, long index, long dictionaryCount) {
        super("Dictionary index out of range: index " + index + " at position " + position
                + " vs dictionary size " + dictionaryCount, position);
        this.index = index;
        this.dictionaryCount = dictionaryCount;
    }

    /** The offending index, read as unsigned. */
    public long index() {
        return index;
    }

    public long dictionaryCount() {
        return dictionaryCount;
    }
}
