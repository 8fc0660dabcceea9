package io.javelin.jmh;

import io.javelin.encoding.kernel.Kernels;
import io.javelin.encoding.kernel.ScalarKernels;
import io.javelin.objectstore.memory.OffHeap;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** Definition levels → validity bitmap, vector vs scalar kernels (bytes of levels per second). */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DefLevelsBenchmark {

    @Param({"1048576"})
    public int levels;

    private Arena arena;
    private MemorySegment input;
    private MemorySegment bitmap;
    private final Kernels scalar = new ScalarKernels();
    private final Kernels selected = Kernels.get();

    @Setup(Level.Trial)
    public void setUp() {
        arena = OffHeap.newArena("bench-deflevels");
        input = arena.allocate(2L * levels, 64);
        bitmap = arena.allocate((levels + 7) / 8, 64);
        Random r = new Random(1);
        ValueLayout.OfShort u16 = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < levels; i++) {
            input.setAtIndex(u16, i, (short) (r.nextInt(16) == 0 ? 1 : 0));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public long scalar() {
        return scalar.defLevelsToValidity(input, 0, levels, bitmap, 0);
    }

    @Benchmark
    public long selected() {
        return selected.defLevelsToValidity(input, 0, levels, bitmap, 0);
    }
}
