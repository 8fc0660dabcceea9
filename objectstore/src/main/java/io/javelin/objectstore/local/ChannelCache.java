package io.javelin.objectstore.local;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Open read channels of a local store, at most {@code capacity} of them, least recently used evicted.
 * Opening a file costs {@code open + fstat + close} per read, which dominated small ranged reads (the
 * page-I/O scheduler reached 0.29 of raw {@code FileChannel} throughput on 4 KiB pages).
 *
 * <p>Channels are shared: positional reads ({@code pread}) need no locking. Each use holds a reference, so
 * an evicted or invalidated channel closes only after its last reader is done. Every method here may block
 * (open, close) and runs on the store's I/O scheduler. The cache assumes what Lance guarantees for ranged
 * reads: data files are written once under a fresh name and never rewritten in place. Writes and deletes
 * through the store invalidate the key; the object's size is cached with the channel and re-checked only
 * when a read seems to pass the end.
 */
final class ChannelCache implements AutoCloseable {

    /** A channel and the number of reads using it; closes when released after being retired. */
    static final class Lease {
        final FileChannel channel;
        private long size;
        private int refs = 1; // the cache's own reference
        private boolean retired;

        Lease(FileChannel channel, long size) {
            this.channel = channel;
            this.size = size;
        }

        synchronized long size() {
            return size;
        }

        /** The current size from the file system (the file may have grown since it was opened). */
        long refreshSize() throws IOException {
            long s = channel.size();
            synchronized (this) {
                size = s;
            }
            return s;
        }

        private synchronized boolean retain() {
            if (retired || !channel.isOpen()) {
                return false;
            }
            refs++;
            return true;
        }

        void release() {
            boolean close;
            synchronized (this) {
                close = --refs == 0;
            }
            if (close) {
                closeQuietly(channel);
            }
        }

        /** Drops the cache's reference (once). */
        void retire() {
            synchronized (this) {
                if (retired) {
                    return;
                }
                retired = true;
            }
            release();
        }
    }

    private final int capacity;
    private final LinkedHashMap<Path, Lease> open = new LinkedHashMap<>(16, 0.75f, true);
    private boolean closed;

    ChannelCache(int capacity) {
        this.capacity = capacity;
    }

    /** A held channel for {@code file}; the caller must {@link Lease#release()} it. Blocks (may open). */
    Lease acquire(Path file) throws IOException {
        synchronized (this) {
            Lease l = open.get(file);
            if (l != null) {
                if (l.retain()) {
                    return l;
                }
                open.remove(file); // closed under us (an interrupted reader closes a FileChannel)
                l.retire();
            }
        }
        FileChannel ch = FileChannel.open(file, StandardOpenOption.READ);
        Lease fresh;
        try {
            fresh = new Lease(ch, ch.size());
        } catch (IOException | RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
        fresh.retain(); // the caller's reference
        List<Lease> evicted = new ArrayList<>(1);
        synchronized (this) {
            if (closed || capacity == 0) {
                evicted.add(fresh);
            } else {
                Lease raced = open.put(file, fresh);
                if (raced != null) {
                    evicted.add(raced);
                }
                Iterator<Map.Entry<Path, Lease>> it = open.entrySet().iterator();
                while (open.size() > capacity && it.hasNext()) {
                    evicted.add(it.next().getValue());
                    it.remove();
                }
            }
        }
        evicted.forEach(Lease::retire);
        return fresh;
    }

    /** Forgets {@code file}'s channel (after a write, delete or failed read); readers keep theirs. */
    void invalidate(Path file) {
        Lease l;
        synchronized (this) {
            l = open.remove(file);
        }
        if (l != null) {
            l.retire();
        }
    }

    /** Forgets {@code lease} if it is still the cached channel of {@code file}. */
    void invalidate(Path file, Lease lease) {
        synchronized (this) {
            if (open.get(file) != lease) {
                return;
            }
            open.remove(file);
        }
        lease.retire();
    }

    synchronized int size() {
        return open.size();
    }

    @Override
    public void close() {
        List<Lease> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(open.values());
            open.clear();
        }
        all.forEach(Lease::retire);
    }

    static boolean isClosedChannel(Throwable t) {
        return t instanceof ClosedChannelException;
    }

    private static void closeQuietly(FileChannel ch) {
        try {
            ch.close();
        } catch (IOException e) {
            // a read channel: nothing was written that a failed close could lose
        }
    }
}
