package io.javelin.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import picocli.CommandLine;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * A single updating stderr line for long CLI operations: rows (and bytes) done, rate, elapsed, and a percentage
 * when the total is known. Shown only on an interactive terminal or with {@code --progress}; {@code --no-progress}
 * and {@code --quiet} silence it, so piped and scripted runs keep byte-identical output.
 *
 * <p>Counting is reactive ({@link #track} adds a {@code doOnNext}); repaints are throttled to about 5 per second
 * with {@link System#nanoTime()} and never happen on Reactor non-blocking threads (a write to stderr may block):
 * there only the counters move, and a small daemon ticker thread repaints, which also keeps the elapsed time
 * moving while a stage produces no rows.
 */
final class Progress implements AutoCloseable {

    /** The flags, mixed into each command that reports progress. */
    static final class Options {
        @CommandLine.Option(names = "--progress", negatable = true,
                description = "Show a progress line on stderr (default: only when attached to a terminal).")
        Boolean progress;

        @CommandLine.Option(names = {"-q", "--quiet"}, description = "No progress output.")
        boolean quiet;

        boolean enabled() {
            if (quiet || Boolean.FALSE.equals(progress)) {
                return false;
            }
            if (Boolean.TRUE.equals(progress)) {
                return true;
            }
            Console c = System.console();
            return c != null && c.isTerminal(); // false when stdin/stdout are redirected
        }
    }

    static final long UNKNOWN = -1;
    private static final long REPAINT_NANOS = 200_000_000L;
    private static final Progress OFF = new Progress(null, "", UNKNOWN, UNKNOWN);

    private final PrintWriter err;
    private final String label;
    private final long totalRows;
    private final long totalBytes;
    private final long startNanos = System.nanoTime();
    private final AtomicLong rows = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong lastPaint = new AtomicLong(Long.MIN_VALUE);
    private final Thread ticker;
    private int lastWidth;
    private boolean painted;
    private volatile boolean done;

    private Progress(PrintWriter err, String label, long totalRows, long totalBytes) {
        this.err = err;
        this.label = label;
        this.totalRows = totalRows;
        this.totalBytes = totalBytes;
        if (err == null) {
            ticker = null;
        } else {
            ticker = Thread.ofPlatform().daemon().name("javelin-progress").unstarted(this::tick);
            ticker.start();
        }
    }

    /** A reporter for {@code label}, or a silent one when the options say so. Totals may be {@link #UNKNOWN}. */
    static Progress start(CommandLine.Model.CommandSpec spec, Options options, String label, long totalRows, long totalBytes) {
        return options != null && options.enabled()
                ? new Progress(spec.commandLine().getErr(), label, totalRows, totalBytes) : OFF;
    }

    boolean enabled() {
        return err != null;
    }

    /** Whether a command with these options will show progress (to skip computing totals otherwise). */
    static boolean enabled(Options options) {
        return options != null && options.enabled();
    }

    /** Counts only the rows of each batch (bytes come from {@link #bytesAt}, e.g. an input file's position). */
    Flux<VectorSchemaRoot> trackRows(Flux<VectorSchemaRoot> batches) {
        return enabled() ? batches.doOnNext(b -> add(b.getRowCount(), 0)) : batches;
    }

    /** Counts the rows and buffer bytes of each batch as it passes. */
    Flux<VectorSchemaRoot> track(Flux<VectorSchemaRoot> batches) {
        return enabled() ? batches.doOnNext(b -> add(b.getRowCount(), bufferBytes(b))) : batches;
    }

    /** Adds done rows and bytes. */
    void add(long rowCount, long byteCount) {
        if (err == null) {
            return;
        }
        rows.addAndGet(rowCount);
        bytes.addAndGet(byteCount);
        if (!Schedulers.isInNonBlockingThread()) {
            repaintIfDue();
        }
    }

    /** Sets the bytes done to an absolute position (e.g. of an input file). */
    void bytesAt(long position) {
        if (err != null) {
            bytes.set(position);
        }
    }

    /** Paints the final line (exact counts) and ends it with a newline. */
    void finish() {
        if (err == null || done) {
            return;
        }
        done = true;
        ticker.interrupt();
        if (totalBytes > 0) {
            bytes.accumulateAndGet(totalBytes, Math::max); // success: the whole input was read (incl. its footer)
        }
        synchronized (this) {
            double secs = Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
            long r = rows.get();
            StringBuilder sb = new StringBuilder(label).append(": ").append(r).append(" rows");
            if (bytes.get() > 0) {
                sb.append(", ").append(human(bytes.get()));
            }
            sb.append(String.format(Locale.ROOT, " in %.1f s (%.0f rows/s)", secs, r / secs));
            paint(sb.toString());
            err.println();
            err.flush();
        }
    }

    /** Without {@link #finish()} (an error): end a half-painted line so the error message starts on its own. */
    @Override
    public void close() {
        if (err == null || done) {
            return;
        }
        done = true;
        ticker.interrupt();
        synchronized (this) {
            if (painted) {
                err.println();
                err.flush();
            }
        }
    }

    private void tick() {
        try {
            while (!done) {
                Thread.sleep(REPAINT_NANOS / 1_000_000);
                repaintIfDue();
            }
        } catch (InterruptedException e) {
            // finished
        }
    }

    private void repaintIfDue() {
        long now = System.nanoTime();
        long last = lastPaint.get();
        if ((last != Long.MIN_VALUE && now - last < REPAINT_NANOS) || !lastPaint.compareAndSet(last, now)) {
            return;
        }
        synchronized (this) {
            if (!done) {
                paint(line(now));
            }
        }
    }

    String line(long now) {
        double secs = (now - startNanos) / 1e9;
        long r = rows.get();
        long b = bytes.get();
        StringBuilder sb = new StringBuilder(label).append(": ").append(r);
        if (totalRows >= 0) {
            sb.append('/').append(totalRows);
        }
        sb.append(" rows");
        if (b > 0 || totalBytes > 0) {
            sb.append(", ").append(human(b));
            if (totalBytes > 0) {
                sb.append('/').append(human(totalBytes));
            }
        }
        double pct = totalRows > 0 ? 100.0 * r / totalRows : totalBytes > 0 ? 100.0 * b / totalBytes : -1;
        if (pct >= 0) {
            sb.append(String.format(Locale.ROOT, " (%.1f%%)", Math.min(100, pct)));
        }
        if (secs > 0) {
            sb.append(String.format(Locale.ROOT, ", %.0f rows/s", r / secs));
        }
        long s = (long) secs;
        sb.append(String.format(Locale.ROOT, ", %d:%02d", s / 60, s % 60));
        return sb.toString();
    }

    private void paint(String text) {
        // '\r' and padding rather than ANSI codes: also readable when --progress is forced into a file.
        int pad = Math.max(0, lastWidth - text.length());
        err.print('\r' + text + " ".repeat(pad));
        err.flush();
        lastWidth = text.length();
        painted = true;
    }

    static long bufferBytes(VectorSchemaRoot b) {
        long n = 0;
        for (FieldVector v : b.getFieldVectors()) {
            n += v.getBufferSize();
        }
        return n;
    }

    static String human(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
