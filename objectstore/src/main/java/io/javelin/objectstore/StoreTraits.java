package io.javelin.objectstore;

/**
 * Static facts about a store that schedulers plan with.
 *
 * @param local                  local file system (no HTTP, no throttling)
 * @param blockSize              largest gap worth reading through to save a request (4 KiB local, 64 KiB cloud)
 * @param ioParallelism          default concurrent requests per scan (8 local, 64 cloud)
 * @param listIsLexicallyOrdered whether listings come back sorted by key
 */
public record StoreTraits(boolean local, long blockSize, int ioParallelism, boolean listIsLexicallyOrdered) {

    public static final long LOCAL_BLOCK_SIZE = 4 * 1024;
    public static final long CLOUD_BLOCK_SIZE = 64 * 1024;

    public static StoreTraits localDefaults() {
        return new StoreTraits(true, LOCAL_BLOCK_SIZE, 8, true);
    }

    public static StoreTraits cloudDefaults() {
        return new StoreTraits(false, CLOUD_BLOCK_SIZE, 64, true);
    }
}
