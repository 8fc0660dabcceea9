package io.javelin.encoding.file;

import io.javelin.objectstore.StoreTraits;

/**
 * Page read-ahead of one file scan: while a batch is being built, the pages of later batches load and
 * decode, within {@code budgetBytes} encoded bytes and {@code maxPages} pages beyond those the current
 * batch needs. Chosen per store kind: a cloud GET costs tens of milliseconds, so more pages stay in flight.
 *
 * @param budgetBytes encoded bytes loaded ahead; 0 turns read-ahead off
 * @param maxPages    pages loaded ahead, at most
 */
public record ReadAhead(long budgetBytes, int maxPages) {

    /** No read-ahead: each batch loads its own pages when it is requested. */
    public static final ReadAhead OFF = new ReadAhead(0, 0);

    public ReadAhead {
        if (budgetBytes < 0 || maxPages < 0) {
            throw new IllegalArgumentException("Invalid read-ahead: " + budgetBytes + " bytes, " + maxPages + " pages (must be >= 0)");
        }
    }

    /**
     * Local files: 32 MiB and max(8, CPUs) pages (more pages decoding than cores). Cloud stores: 64 MiB and
     * 32 pages, enough requests in flight per file to hide 20-100 ms of first-byte latency; the page-I/O
     * scheduler still bounds the requests and bytes in flight per store.
     */
    public static ReadAhead forStore(StoreTraits traits) {
        return traits.local()
                ? new ReadAhead(32L << 20, Math.max(8, Runtime.getRuntime().availableProcessors()))
                : new ReadAhead(64L << 20, 32);
    }

    public static ReadAhead localDefaults() {
        return forStore(StoreTraits.localDefaults());
    }

    public boolean enabled() {
        return budgetBytes > 0 && maxPages > 0;
    }
}
