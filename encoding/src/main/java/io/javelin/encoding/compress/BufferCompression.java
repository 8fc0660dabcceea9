package io.javelin.encoding.compress;

/**
 * Factory for Lance's general buffer compressors ({@code BufferCompression{scheme, level}} in the
 * 2.1+ encodings proto, and the 2.0 {@code Flat.compression} string).
 *
 * <p>Implementation choice: aircompressor-v3's <b>pure-Java</b> codecs ({@code ZstdJavaDecompressor},
 * {@code ZstdJavaCompressor}, {@code Lz4JavaDecompressor}, {@code Lz4JavaCompressor}). On this
 * platform {@code ZstdDecompressor.create()} returns the bundled <i>native</i> libzstd (loaded through
 * FFM), which would break the engine's pure-Java promise, so it is not used. The Java zstd compressor
 * has one fixed level (3, zstd's default and what Lance's level 0 means); other levels are honoured
 * only when the caller opts into the native compressor via {@link #zstd(int, boolean)}. Decoding is
 * always pure Java. The Java codecs use {@code sun.misc.Unsafe} internally (JDK 25 prints a warning
 * unless {@code --sun-misc-unsafe-memory-access=allow}).
 */
public final class BufferCompression {

    /** Proto {@code CompressionScheme} numbers. */
    public static final int SCHEME_UNSPECIFIED = 0;
    public static final int SCHEME_LZ4 = 1;
    public static final int SCHEME_ZSTD = 2;

    private static final BufferCodec ZSTD_DEFAULT = new ZstdBufferCodec(0, false);
    private static final BufferCodec LZ4 = new Lz4BufferCodec();

    private BufferCompression() {
    }

    /** zstd at Lance's default level (0 = zstd's default, 3), pure Java. */
    public static BufferCodec zstd() {
        return ZSTD_DEFAULT;
    }

    /**
     * zstd at {@code level}; pure Java (level 3) unless {@code allowNative} is set and the bundled native
     * library loads, in which case compression honours {@code level}. Decompression is always Java.
     */
    public static BufferCodec zstd(int level, boolean allowNative) {
        return new ZstdBufferCodec(level, allowNative);
    }

    public static BufferCodec lz4() {
        return LZ4;
    }

    /**
     * The codec for a proto {@code CompressionScheme}; {@code level} is used by zstd only.
     *
     * @throws CodecException for UNSPECIFIED or an unknown scheme
     */
    public static BufferCodec forScheme(int scheme, int level) {
        return switch (scheme) {
            case SCHEME_LZ4 -> LZ4;
            case SCHEME_ZSTD -> level == 0 || level == 3 ? ZSTD_DEFAULT : new ZstdBufferCodec(level, false);
            default -> throw new CodecException("general", -1, "Unsupported compression scheme " + scheme);
        };
    }

    /** The codec for a 2.0 {@code Flat.compression} scheme string ("zstd", "lz4"). */
    public static BufferCodec forName(String scheme) {
        return switch (scheme.toLowerCase(java.util.Locale.ROOT)) {
            case "zstd" -> ZSTD_DEFAULT;
            case "lz4" -> LZ4;
            default -> throw new CodecException("general", -1, "Unsupported compression scheme '" + scheme + "'");
        };
    }
}
