package io.javelin.encoding.file;

import io.javelin.objectstore.StoreTraits;

/**
 * Page read-ahead of one file scan: while a batch is being built, the pages of later batches load and
 * decode, within {@code budgetBytes} encoded bytes and {@code maxPages} pages beyond those the current
 * batch needs. Chosen per store kind: a cloud GET costs tens of milliseconds, so more pages stay in flight.
 * A dataset scan also bounds the read-ahead of all its file scans together ({@code scanBudgetBytes}, shared
 * through a {@link ReadAheadBudget}).
 *
 * @param budgetBytes     encoded bytes loaded ahead by one file scan; 0 turns read-ahead off
 * @param maxPages        pages loaded ahead by one file scan, at most
 * @param scanBudgetBytes encoded bytes loaded ahead by all file scans of one dataset scan
 */
public record ReadAhead(long budgetBytes, int maxPages, long scanBudgetBytes) {

    /** No read-ahead: each batch loads its own pages when it is requested. */
    public static final ReadAhead OFF = new ReadAhead(0, 0);

    public ReadAhead {
        if (budgetBytes < 0 || maxPages < 0 || scanBudgetBytes <= 0) {
            throw new IllegalArgumentException("Invalid read-ahead: " + budgetBytes + " bytes, " + maxPages + " pages, "
                    + scanBudgetBytes + " bytes per scan (must be >= 0, >= 0, > 0)");
        }
    }

    /** One file scan's limits; the scan-wide bound is {@code budgetBytes} times 16 (the default fragment read-ahead). */
    public ReadAhead(long budgetBytes, int maxPages) {
        this(budgetBytes, maxPages, Math.max(1, budgetBytes) * 16);
    }

    /**
     * Local: 32 MiB per file, 256 MiB per scan (pages arrive in microseconds; more only costs memory). Cloud:
     * 64 MiB and 32 pages per file, 1 GiB per scan (the 16 fragments read at once by default may each keep a
     * full window of GETs in flight).
     */
    public static ReadAhead forStore(StoreTraits traits) {
        return traits.local()
                ? new ReadAhead(32L << 20, Math.max(8, Runtime.getRuntime().availableProcessors()), 256L << 20)
                : new ReadAhead(64L << 20, 32, 1L << 30);
    }

    public static ReadAhead localDefaults() {
        return forStore(StoreTraits.localDefaults());
    }

    public boolean enabled() {
        return budgetBytes > 0 && maxPages > 0;
    }

    /** These limits with a scan-wide budget of {@code bytes}. */
    public ReadAhead withScanBudget(long bytes) {
        return new ReadAhead(budgetBytes, maxPages, bytes);
    }
}
