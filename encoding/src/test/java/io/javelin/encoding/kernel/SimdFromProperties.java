package io.javelin.encoding.kernel;

import org.junit.jupiter.api.extension.Extension;

/**
 * Test runs choose the SIMD kernels with JVM properties ({@code -Djavelin.simd.disable=true},
 * {@code -Djavelin.simd.maxBits=128}; the surefire executions of the encoding and index modules set them):
 * the library takes only {@link SimdOptions}. Auto-detected by JUnit, so it is loaded, and configures the
 * kernels, before any test runs.
 */
public final class SimdFromProperties implements Extension {

    static {
        SimdOptions.configure(new SimdOptions(!Boolean.getBoolean("javelin.simd.disable"),
                Integer.getInteger("javelin.simd.maxBits", Integer.MAX_VALUE)));
    }
}
