package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * Vector API kernels. Loaded reflectively by {@link Kernels} only when jdk.incubator.vector is in the
 * boot layer, so nothing here is linked on a JVM without it.
 */
final class VectorKernels extends ScalarKernels {

    private static final VectorSpecies<Short> SHORTS = ShortVector.SPECIES_PREFERRED;

    @Override
    public String name() {
        return "vector(" + SHORTS.vectorBitSize() + "-bit)";
    }

    @Override
    public long defLevelsToValidity(MemorySegment levels, long levelsOffset, long count, MemorySegment bitmap, long bitmapOffset) {
        int lanes = SHORTS.length(); // a multiple of 8, so each step fills whole bitmap bytes
        long nulls = 0;
        long i = 0;
        long bound = count - (count % lanes);
        for (; i < bound; i += lanes) {
            ShortVector v = ShortVector.fromMemorySegment(SHORTS, levels, levelsOffset + 2 * i, ByteOrder.LITTLE_ENDIAN);
            VectorMask<Short> present = v.compare(VectorOperators.EQ, (short) 0);
            long bits = present.toLong();
            nulls += lanes - Long.bitCount(bits);
            for (int b = 0; b < lanes; b += 8) {
                bitmap.set(ValueLayout.JAVA_BYTE, bitmapOffset + ((i + b) >>> 3), (byte) (bits >>> b));
            }
        }
        return nulls + ScalarKernels.defLevelsToValidityFrom(levels, levelsOffset, i, count, bitmap, bitmapOffset);
    }
}
