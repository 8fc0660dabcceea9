package io.javelin.encoding.kernel;

/**
 * Data handed to a kernel is inconsistent (an index past the dictionary, offsets that go backwards).
 * Kernels trust their sizes but still report the few data-dependent errors they cannot avoid seeing;
 * the reader turns this into a {@code CorruptFileException} carrying the file and offset.
 */
public class KernelInputException extends RuntimeException {

    private final long position;

    public KernelInputException(String message, long position) {
        super(message);
        this.position = position;
    }

    /** Position (value index, not byte offset) of the first offending element in the kernel's input. */
    public long position() {
        return position;
    }
}
