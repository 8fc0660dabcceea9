package io.javelin.index.kernel;

/**
 * Parquet-compatible split-block bloom filter (SBBF) as Lance's {@code sbbf.rs}: 256-bit blocks of
 * eight u32 words; {@code block = ((h >>> 32) * numBlocks) >>> 32}; word {@code i} gets bit
 * {@code (uint32(h) * SALT[i]) >>> 27}; serialized block by block, words little-endian.
 */
public final class SplitBlockBloomFilter {

    private static final int[] SALT = {
        0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31
    };
    public static final int MIN_BYTES = 32;
    public static final int MAX_BYTES = 128 * 1024 * 1024;

    private final int[] words; // numBlocks * 8

    private SplitBlockBloomFilter(int[] words) {
        this.words = words;
    }

    /** An empty filter of {@code numBytes} rounded to a power of two in [32 B, 128 MiB]. */
    public static SplitBlockBloomFilter withNumBytes(long numBytes) {
        long n = Math.max(MIN_BYTES, Math.min(MAX_BYTES, numBytes));
        n = Long.highestOneBit(n - 1) << 1; // next power of two (n >= 32)
        return new SplitBlockBloomFilter(new int[(int) (n / 4)]);
    }

    /** Lance/arrow-rs sizing: {@code bits = -8·ndv / ln(1 - fpp^(1/8))}. */
    public static long numBitsFromNdvFpp(long ndv, double fpp) {
        return (long) (-8.0 * ndv / Math.log(1.0 - Math.pow(fpp, 1.0 / 8.0)));
    }

    public static SplitBlockBloomFilter withNdvFpp(long ndv, double fpp) {
        if (!(fpp >= 0 && fpp < 1)) {
            throw new IllegalArgumentException("Invalid false positive probability: " + fpp + " (must be in [0, 1))");
        }
        return withNumBytes(numBitsFromNdvFpp(ndv, fpp) / 8);
    }

    /** Wraps serialized bytes (length must be a positive multiple of 32). */
    public static SplitBlockBloomFilter fromBytes(byte[] bytes) {
        if (bytes.length == 0 || bytes.length % 32 != 0) {
            throw new IllegalArgumentException("Bitset length must be a positive multiple of 32, got " + bytes.length);
        }
        int[] w = new int[bytes.length / 4];
        for (int i = 0; i < w.length; i++) {
            w[i] = (bytes[4 * i] & 0xFF) | (bytes[4 * i + 1] & 0xFF) << 8 | (bytes[4 * i + 2] & 0xFF) << 16 | (bytes[4 * i + 3] & 0xFF) << 24;
        }
        return new SplitBlockBloomFilter(w);
    }

    /** Serialized size. */
    public long numBytes() {
        return 4L * words.length;
    }

    public byte[] toBytes() {
        byte[] out = new byte[words.length * 4];
        for (int i = 0; i < words.length; i++) {
            int w = words[i];
            out[4 * i] = (byte) w;
            out[4 * i + 1] = (byte) (w >>> 8);
            out[4 * i + 2] = (byte) (w >>> 16);
            out[4 * i + 3] = (byte) (w >>> 24);
        }
        return out;
    }

    public int numBlocks() {
        return words.length / 8;
    }

    private int blockIndex(long hash) {
        return (int) (((hash >>> 32) * numBlocks()) >>> 32);
    }

    public void insertHash(long hash) {
        int base = blockIndex(hash) * 8;
        int x = (int) hash;
        for (int i = 0; i < 8; i++) {
            words[base + i] |= 1 << ((x * SALT[i]) >>> 27);
        }
    }

    public boolean checkHash(long hash) {
        int base = blockIndex(hash) * 8;
        int x = (int) hash;
        for (int i = 0; i < 8; i++) {
            if ((words[base + i] & (1 << ((x * SALT[i]) >>> 27))) == 0) {
                return false;
            }
        }
        return true;
    }

    public void insert(byte[] valueBytes) {
        insertHash(XxHash64.hash(valueBytes, 0));
    }

    public boolean check(byte[] valueBytes) {
        return checkHash(XxHash64.hash(valueBytes, 0));
    }
}
