package io.javelin.encoding.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KernelsTest {

    private final Kernels scalar = new ScalarKernels();

    @Test
    void selectedProviderMatchesTheJvm() {
        // the run's -Djavelin.simd.* flags reached the library as SimdOptions (SimdFromProperties)
        assertThat(SimdOptions.current()).isEqualTo(new SimdOptions(!Boolean.getBoolean("javelin.simd.disable"),
                Integer.getInteger("javelin.simd.maxBits", Integer.MAX_VALUE)));
        boolean forcedScalar = !SimdOptions.current().enabled();
        boolean vectorAvailable = Kernels.Holder.vectorModulePresent();
        String expected = vectorAvailable && !forcedScalar ? "vector(" : "scalar";
        assertThat(Kernels.get().name()).startsWith(expected);
        int maxBits = SimdOptions.current().maxBits();
        if (maxBits != Integer.MAX_VALUE && expected.startsWith("vector")) {
            assertThat(Kernels.get().name()).isEqualTo("vector(" + maxBits + "-bit)");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1023, 1024, 1025, 4099})
    void defLevelsToValidityAgreesWithScalar(int count) {
        Random random = new Random(count);
        try (Arena arena = OffHeap.newArena("kernels-test")) {
            MemorySegment levels = arena.allocate(2L * count + 3);
            long offset = 3; // unaligned on purpose
            long expectedNulls = 0;
            for (int i = 0; i < count; i++) {
                short level = (short) (random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0);
                if (level != 0) {
                    expectedNulls++;
                }
                levels.set(ScalarKernels.U16, offset + 2L * i, level);
            }
            int bytes = (count + 7) / 8;
            MemorySegment a = arena.allocate(bytes + 1).fill((byte) 0x5A);
            MemorySegment b = arena.allocate(bytes + 1).fill((byte) 0x5A);
            long nullsScalar = scalar.defLevelsToValidity(levels, offset, count, a, 1);
            long nullsSelected = Kernels.get().defLevelsToValidity(levels, offset, count, b, 1);
            assertThat(nullsScalar).isEqualTo(expectedNulls);
            assertThat(nullsSelected).isEqualTo(expectedNulls);
            assertThat(b.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(a.toArray(ValueLayout.JAVA_BYTE));
            for (int i = 0; i < count; i++) {
                boolean valid = (a.get(ValueLayout.JAVA_BYTE, 1 + i / 8) >> (i % 8) & 1) == 1;
                assertThat(valid).isEqualTo(levels.get(ScalarKernels.U16, offset + 2L * i) == 0);
            }
            if (count % 8 != 0) {
                int last = a.get(ValueLayout.JAVA_BYTE, bytes) & 0xFF;
                assertThat(last >>> (count % 8)).as("bits past count are clear").isZero();
            }
            assertThat(a.get(ValueLayout.JAVA_BYTE, 0)).as("byte before the bitmap untouched").isEqualTo((byte) 0x5A);
        }
    }
}
