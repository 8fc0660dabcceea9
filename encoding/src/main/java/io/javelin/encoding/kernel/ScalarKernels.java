package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Plain-loop kernels: the reference implementation and the fallback without the Vector API. */
public class ScalarKernels implements Kernels {

    static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    @Override
    public String name() {
        return "scalar";
    }

    @Override
    public long defLevelsToValidity(MemorySegment levels, long levelsOffset, long count, MemorySegment bitmap, long bitmapOffset) {
        return defLevelsToValidityFrom(levels, levelsOffset, 0, count, bitmap, bitmapOffset);
    }

    /** Handles levels [start, count); {@code start} must be a multiple of 8. */
    static long defLevelsToValidityFrom(MemorySegment levels, long levelsOffset, long start, long count,
                                        MemorySegment bitmap, long bitmapOffset) {
        long nulls = 0;
        for (long i = start; i < count; i += 8) {
            int bits = 0;
            long end = Math.min(8, count - i);
            for (int j = 0; j < end; j++) {
                short level = levels.get(U16, levelsOffset + 2 * (i + j));
                if (level == 0) {
                    bits |= 1 << j;
                } else {
                    nulls++;
                }
            }
            bitmap.set(ValueLayout.JAVA_BYTE, bitmapOffset + (i >>> 3), (byte) bits);
        }
        return nulls;
    }
}
