package io.javelin.tx.tree;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * In-memory {@link TreeStore} that counts every request, so tests can assert exact I/O.
 * Objects are keyed by {@link ObjectLocation}; a put of an existing location fails (tree objects
 * are written once under fresh names).
 */
public final class MemoryTreeStore implements TreeStore {

    private final Map<ObjectLocation, byte[]> objects = new ConcurrentSkipListMap<>(
            (a, b) -> a.toString().compareTo(b.toString()));
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    private final java.util.Queue<ObjectLocation> readLog = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Request and byte counters: gets, rangeGets, puts, lists, bytesRead, bytesWritten. */
    public long count(String counter) {
        AtomicLong c = counters.get(counter);
        return c == null ? 0 : c.get();
    }

    /** Reads through all counters at once, as "gets=1 puts=0 ...". */
    public Counts counts() {
        return new Counts(count("gets"), count("rangeGets"), count("puts"), count("lists"),
                count("bytesRead"), count("bytesWritten"));
    }

    /** Zeroes every counter. */
    public void resetCounts() {
        counters.clear();
        readLog.clear();
    }

    /** Locations read (whole or ranged) since the last reset, in request order. */
    public List<ObjectLocation> readLog() {
        return List.copyOf(readLog);
    }

    /** Number of stored objects. */
    public int size() {
        return objects.size();
    }

    /** All stored locations. */
    public List<ObjectLocation> locations() {
        return List.copyOf(objects.keySet());
    }

    /** Direct (uncounted) access for tests that tamper with stored objects. */
    public byte[] peek(ObjectLocation location) {
        return objects.get(location);
    }

    /** Direct (uncounted) overwrite for tests that tamper with stored objects. */
    public void tamper(ObjectLocation location, byte[] bytes) {
        objects.put(location, bytes.clone());
    }

    private void add(String counter, long delta) {
        counters.computeIfAbsent(counter, k -> new AtomicLong()).addAndGet(delta);
    }

    @Override
    public Mono<Void> put(ObjectLocation location, byte[] bytes) {
        return Mono.fromRunnable(() -> {
            add("puts", 1);
            add("bytesWritten", bytes.length);
            if (objects.putIfAbsent(location, bytes.clone()) != null) {
                throw new IllegalStateException("object already exists: " + location);
            }
        });
    }

    @Override
    public Mono<byte[]> get(ObjectLocation location) {
        return Mono.fromCallable(() -> {
            add("gets", 1);
            readLog.add(location);
            byte[] b = objects.get(location);
            if (b == null) {
                throw new NoSuchElementException("no such object: " + location);
            }
            add("bytesRead", b.length);
            return b.clone();
        });
    }

    @Override
    public Mono<byte[]> getRange(ObjectLocation location, long offset, int length) {
        return Mono.fromCallable(() -> {
            add("rangeGets", 1);
            readLog.add(location);
            byte[] b = objects.get(location);
            if (b == null) {
                throw new NoSuchElementException("no such object: " + location);
            }
            if (offset < 0 || offset + length > b.length) {
                throw new IndexOutOfBoundsException("range " + offset + "+" + length + " of " + b.length);
            }
            add("bytesRead", length);
            return Arrays.copyOfRange(b, (int) offset, (int) offset + length);
        });
    }

    @Override
    public Flux<ObjectLocation> list(String dataset, String prefix) {
        return Flux.defer(() -> {
            add("lists", 1);
            return Flux.fromIterable(objects.keySet().stream()
                    .filter(l -> l.dataset().equals(dataset) && l.path().startsWith(prefix))
                    .toList());
        });
    }

    /** A snapshot of the counters. */
    public record Counts(long gets, long rangeGets, long puts, long lists, long bytesRead, long bytesWritten) {
        public long reads() {
            return gets + rangeGets;
        }
    }
}
