package io.javelin.encoding.kernel;

import java.lang.foreign.MemorySegment;

/**
 * Synchronous decode kernels over off-heap memory. Two implementations exist: {@link ScalarKernels}
 * (plain loops, always available) and {@code VectorKernels} (jdk.incubator.vector). The vector one is
 * chosen at class-load time when the incubator module is in the boot layer, unless the system
 * property {@code javelin.simd.disable=true} forces the scalar one.
 *
 * <p>Kernels never allocate, never block and know nothing of Reactor; callers bound-check inputs.
 */
public interface Kernels {

    /** The kernels this JVM uses. */
    static Kernels get() {
        return Holder.INSTANCE;
    }

    /** Short name of the implementation, e.g. "vector(512-bit)" or "scalar". */
    String name();

    /**
     * Turns {@code count} little-endian u16 definition levels into an Arrow validity bitmap: bit i is
     * set when level i is 0 (the value is present). {@code bitmap} must hold {@code ceil(count/8)}
     * bytes; bits past {@code count} in the last byte are cleared.
     *
     * @return the number of nulls (levels other than 0)
     */
    long defLevelsToValidity(MemorySegment levels, long levelsOffset, long count, MemorySegment bitmap, long bitmapOffset);

    final class Holder {
        static final Kernels INSTANCE = load();

        private Holder() {
        }

        static boolean vectorModulePresent() {
            return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
        }

        private static Kernels load() {
            if (vectorModulePresent() && !Boolean.getBoolean("javelin.simd.disable")) {
                try {
                    return (Kernels) Class.forName("io.javelin.encoding.kernel.VectorKernels")
                            .getDeclaredConstructor().newInstance();
                } catch (ReflectiveOperationException | LinkageError e) {
                    // Fall through: the scalar kernels are always correct.
                }
            }
            return new ScalarKernels();
        }
    }
}
