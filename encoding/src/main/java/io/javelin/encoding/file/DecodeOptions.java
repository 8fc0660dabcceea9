package io.javelin.encoding.file;

/**
 * How a reader decodes pages. The defaults are the fast paths; the others exist so tests and benchmarks can
 * compare each fast path with the general one on the same file.
 *
 * @param direct       pages of leaves that assemble directly become native pages in Arrow layout that batches
 *                     wrap (false: every page takes the general, copying path)
 * @param nativeDecode 2.0 pages and nested 2.1+ leaves decode into native memory too (false: on the heap)
 * @param takeGather   takes of top-level leaves gather straight into the vectors' buffers
 */
public record DecodeOptions(boolean direct, boolean nativeDecode, boolean takeGather) {

    public static final DecodeOptions DEFAULT = new DecodeOptions(true, true, true);

    public DecodeOptions withNativeDecode(boolean on) {
        return new DecodeOptions(direct, on, takeGather);
    }
}
