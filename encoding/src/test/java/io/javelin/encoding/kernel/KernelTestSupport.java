package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/** Shared helpers: both providers, odd sizes, segment fill and dump. */
final class KernelTestSupport {

    static final Kernels SCALAR = new ScalarKernels();
    static final Kernels SELECTED = Kernels.get();

    /** Deliberately odd sizes so vector tails run. */
    static final long[] SIZES = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 127, 129, 255, 257, 1023, 1024, 1025, 4099, 10007};

    private KernelTestSupport() {
    }

    /** The scalar kernels and the selected ones (the same class when SIMD is disabled). */
    static List<Kernels> kernels() {
        return List.of(SCALAR, SELECTED);
    }

    /** Every (kernel, size) pair. */
    static Stream<Arguments> kernelsAndSizes() {
        return kernels().stream().flatMap(k -> java.util.Arrays.stream(SIZES).mapToObj(n -> Arguments.of(k, n)));
    }

    static MemorySegment fillRandom(MemorySegment s, Random random) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return s;
    }

    static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }
}
