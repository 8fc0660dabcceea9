package io.javelin.encoding.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class LevelsTest {

    static Stream<Arguments> cases() {
        return KernelTestSupport.kernelsAndSizes().flatMap(a -> Stream.of(1, 2).flatMap(b -> Stream.of(0, 1, 2, 3, 200, 255, 256, 65535, 65536, 70000)
                .map(t -> Arguments.of(a.get()[0], a.get()[1], b, t))));
    }

    private static int level(Random random, int levelBytes) {
        return switch (random.nextInt(5)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> 2;
            case 3 -> levelBytes == 1 ? 255 : 65535;
            default -> random.nextInt(levelBytes == 1 ? 256 : 65536);
        };
    }

    @ParameterizedTest(name = "{0} n={1} levels={2}B threshold={3}")
    @MethodSource("cases")
    void levelsToValidityMatchesDefinition(Kernels kernels, long count, int levelBytes, int threshold) {
        Random random = new Random(count * 3 + levelBytes * 7L + threshold);
        try (Arena arena = OffHeap.newArena("levels-test")) {
            MemorySegment levels = arena.allocate(count * levelBytes + 1);
            int[] expected = new int[(int) count];
            long invalid = 0;
            for (int i = 0; i < count; i++) {
                expected[i] = level(random, levelBytes);
                if (expected[i] >= threshold) {
                    invalid++;
                }
                if (levelBytes == 1) {
                    levels.set(ValueLayout.JAVA_BYTE, 1 + i, (byte) expected[i]);
                } else {
                    levels.set(ScalarKernels.U16, 1 + 2L * i, (short) expected[i]);
                }
            }
            long bytes = (count + 7) / 8;
            MemorySegment bitmap = arena.allocate(bytes + 2).fill((byte) 0x5A);
            assertThat(kernels.levelsToValidity(levelBytes, levels, 1, count, threshold, bitmap, 1)).isEqualTo(invalid);
            for (int i = 0; i < count; i++) {
                boolean valid = (bitmap.get(ValueLayout.JAVA_BYTE, 1 + i / 8) >> (i % 8) & 1) == 1;
                assertThat(valid).as("level %d = %d", i, expected[i]).isEqualTo(expected[i] < threshold);
            }
            if (count % 8 != 0) {
                assertThat((bitmap.get(ValueLayout.JAVA_BYTE, bytes) & 0xFF) >>> (count % 8)).isZero();
            }
            assertThat(bitmap.get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 0x5A);
            assertThat(bitmap.get(ValueLayout.JAVA_BYTE, bytes + 1)).isEqualTo((byte) 0x5A);
            assertThat(kernels.countLevelsBelow(levelBytes, levels, 1, count, threshold)).isEqualTo(count - invalid);

            int other = 3 - levelBytes;
            MemorySegment converted = arena.allocate(count * other + 3);
            kernels.convertLevels(levelBytes, levels, 1, count, other, converted, 3);
            for (int i = 0; i < count; i++) {
                int v = other == 1 ? converted.get(ValueLayout.JAVA_BYTE, 3 + i) & 0xFF : converted.get(ScalarKernels.U16, 3 + 2L * i) & 0xFFFF;
                assertThat(v).isEqualTo(other == 1 ? expected[i] & 0xFF : expected[i]);
            }
        }
    }
}
