package io.javelin.encoding.arrow;

/**
 * Decoded leaf values: fixed-width ({@link Fixed}, 1-bit values as an LSB-first bitmap) or
 * variable-width ({@link Var}). Null slots hold arbitrary bytes (fixed) or empty values (variable).
 */
public sealed interface Values permits Values.Fixed, Values.Var {

    int count();

    /**
     * {@code count} values of {@code bitsPerValue} bits; {@code itemValidity} (LSB-first, one bit per
     * inner item) is set only for fixed-size lists with nullable items.
     */
    record Fixed(byte[] data, int bitsPerValue, int count, byte[] itemValidity, int itemsPerValue) implements Values {
        public Fixed(byte[] data, int bitsPerValue, int count) {
            this(data, bitsPerValue, count, null, 1);
        }
    }

    /** Offsets start at 0 ({@code offsets.length == count + 1}). */
    record Var(long[] offsets, byte[] data) implements Values {
        @Override
        public int count() {
            return offsets.length - 1;
        }
    }
}
