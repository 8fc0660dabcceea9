/**
 * Synchronous decode/encode kernels over {@link java.lang.foreign.MemorySegment}s for the Lance file
 * reader and writer: FastLanes bit-packing, RLE, byte stream split, dictionary gathers, LSB-first
 * bitmap copies, offset rebasing and rep/def level helpers.
 *
 * <p>Contract shared by every kernel in {@link io.javelin.encoding.kernel.Kernels}:
 * <ul>
 *   <li>All multi-byte values are little-endian and may be unaligned; offsets are in bytes unless the
 *       parameter name says {@code Bit}.</li>
 *   <li>Kernels never allocate, never block and never touch Reactor (an ArchUnit rule checks this);
 *       the caller sizes every output segment.</li>
 *   <li>Sizes are trusted (segment accesses are still bounds-checked by the JVM, so a wrong size is an
 *       {@code IndexOutOfBoundsException}, never memory corruption). Data-dependent errors that only a
 *       kernel sees are reported as {@link io.javelin.encoding.kernel.KernelInputException}
 *       (e.g. {@link io.javelin.encoding.kernel.IndexOutOfDictionaryException}) with the position of
 *       the offending value; the reader maps them to {@code CorruptFileException}.</li>
 *   <li>Heap segments must wrap a {@code byte[]} (a Vector API restriction).</li>
 *   <li>{@code Kernels.get()} returns the Vector API implementation when {@code jdk.incubator.vector}
 *       is in the boot layer (unless {@code -Djavelin.simd.disable=true}); both implementations give
 *       bit-identical results. {@code -Djavelin.simd.maxBits=128|256} narrows the vector shape.</li>
 * </ul>
 */
package io.javelin.encoding.kernel;
