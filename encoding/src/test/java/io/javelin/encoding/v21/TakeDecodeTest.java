package io.javelin.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.kernel.Kernels;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Single values read out of FastLanes blocks ({@link TakeDecode#unpackOne}) equal the block unpack, for every type and bit width. */
class TakeDecodeTest {

    @Test
    void unpackOneEqualsTheBlockUnpack() {
        SplittableRandom rnd = new SplittableRandom(3);
        for (int t : new int[] {8, 16, 32, 64}) {
            for (int w = 0; w <= t; w++) {
                byte[] packed = new byte[128 * w + 8];
                rnd.nextBytes(packed);
                MemorySegment src = MemorySegment.ofArray(packed);
                MemorySegment out = MemorySegment.ofArray(new byte[1024 * t / 8]);
                Kernels.get().unpack(t, w, src, 0, out, 0);
                for (int i = 0; i < 1024; i++) {
                    long want = switch (t) {
                        case 8 -> out.get(ValueLayout.JAVA_BYTE, i) & 0xFFL;
                        case 16 -> out.get(ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 2L * i) & 0xFFFFL;
                        case 32 -> out.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 4L * i) & 0xFFFFFFFFL;
                        default -> out.get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN), 8L * i);
                    };
                    assertThat(TakeDecode.unpackOne(t, w, src, 0, i)).as("t=%d w=%d i=%d", t, w, i).isEqualTo(want);
                }
            }
        }
    }
}
