package io.javelin.objectstore.inmemory;

import io.javelin.objectstore.InvalidRangeException;
import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectPaths;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The embedded store behind {@code memory://}: a sorted concurrent map of immutable byte arrays.
 * Stores opened on the same {@code memory://name} share one namespace for the life of the process
 * (so a dataset can be written and reopened); {@link #clearNamespace} drops one.
 *
 * <p>Objects live on the heap (this is a test and scratch store); reads copy into off-heap buffers
 * like every other store's.
 */
public final class InMemoryObjectStore implements ObjectStore {

    private static final Map<String, ConcurrentSkipListMap<String, Entry>> NAMESPACES = new ConcurrentHashMap<>();
    private static final AtomicLong GENERATION = new AtomicLong();

    private record Entry(byte[] data, long generation, Instant modified) {
    }

    private final String namespace;
    private final String rootPrefix;
    private final ConcurrentSkipListMap<String, Entry> objects;
    private final StoreCounters counters;

    public InMemoryObjectStore(String namespace, String rootPrefix) {
        this.namespace = namespace;
        this.rootPrefix = rootPrefix;
        this.objects = NAMESPACES.computeIfAbsent(namespace, n -> new ConcurrentSkipListMap<>());
        this.counters = new StoreCounters(uri());
    }

    /** A store on a fresh, private namespace. */
    public static InMemoryObjectStore createIsolated() {
        return new InMemoryObjectStore("isolated-" + GENERATION.incrementAndGet() + "-" + System.nanoTime(), "");
    }

    public static void clearNamespace(String namespace) {
        NAMESPACES.remove(namespace);
    }

    @Override
    public String uri() {
        return "memory://" + namespace + (rootPrefix.isEmpty() ? "" : "/" + rootPrefix);
    }

    @Override
    public StoreTraits traits() {
        return new StoreTraits(true, StoreTraits.LOCAL_BLOCK_SIZE, 64, true);
    }

    @Override
    public StoreCounters counters() {
        return counters;
    }

    private String full(String key) {
        return ObjectPaths.join(rootPrefix, ObjectPaths.checkKey(key));
    }

    private Entry entry(String key) {
        Entry e = objects.get(full(key));
        if (e == null) {
            throw new ObjectNotFoundException(key, null);
        }
        return e;
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        return Mono.fromCallable(() -> {
            counters.request(OpClass.READ);
            Entry e = entry(path);
            if (offset + length > e.data.length) {
                throw new InvalidRangeException(path, offset, length, e.data.length);
            }
            return copy(e.data, offset, length);
        });
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return Mono.fromCallable(() -> {
            counters.request(OpClass.READ);
            Entry e = entry(path);
            long len = Math.min(length, e.data.length);
            return copy(e.data, e.data.length - len, len);
        });
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return Mono.fromCallable(() -> {
            counters.request(OpClass.READ);
            Entry e = entry(path);
            return copy(e.data, 0, e.data.length);
        });
    }

    private Buffer copy(byte[] data, long offset, long length) {
        Buffer b = Buffer.allocate(length, "memory-read");
        MemorySegment.copy(MemorySegment.ofArray(data), offset, b.segment(), 0, length);
        counters.bytes(OpClass.READ, length);
        return b;
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return Mono.fromCallable(() -> {
            counters.request(OpClass.READ);
            return meta(path, entry(path));
        });
    }

    private static ObjectMeta meta(String key, Entry e) {
        return new ObjectMeta(key, e.data.length, e.modified, "\"" + Long.toHexString(e.generation) + "\"",
                Long.toString(e.generation));
    }

    private Entry newEntry(byte[] data) {
        return new Entry(data, GENERATION.incrementAndGet(), Instant.now());
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return Mono.fromCallable(() -> {
            String k = full(path);
            counters.request(OpClass.WRITE);
            Entry e = newEntry(data.toArray(ValueLayout.JAVA_BYTE));
            objects.put(k, e);
            counters.bytes(OpClass.WRITE, data.byteSize());
            return meta(path, e);
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return Mono.defer(() -> {
            String k = full(path);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            return data.concatMap(chunk -> {
                byte[] b = new byte[chunk.remaining()];
                chunk.get(b);
                out.write(b, 0, b.length);
                return Mono.just(b.length);
            }, 0).then(Mono.fromCallable(() -> {
                counters.request(OpClass.WRITE);
                Entry e = newEntry(out.toByteArray());
                objects.put(k, e);
                counters.bytes(OpClass.WRITE, e.data.length);
                return meta(path, e);
            }));
        });
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return Mono.fromCallable(() -> {
            String k = full(path);
            counters.request(OpClass.WRITE);
            Entry e = newEntry(data.toArray(ValueLayout.JAVA_BYTE));
            if (objects.putIfAbsent(k, e) != null) {
                throw new ObjectAlreadyExistsException(path, 412, "AlreadyExists", null);
            }
            counters.bytes(OpClass.WRITE, data.byteSize());
            return meta(path, e);
        });
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return Mono.fromCallable(() -> {
            String p = ObjectPaths.checkPrefix(prefix);
            if (delimiter != null && !delimiter.equals("/")) {
                throw new IllegalArgumentException("Unsupported delimiter: '" + delimiter + "' (only '/')");
            }
            if (maxKeys < 1 || maxKeys > 1000) {
                throw new IllegalArgumentException("Invalid maxKeys: " + maxKeys + " (must be 1..1000)");
            }
            counters.request(OpClass.LIST);
            String fullPrefix = rootPrefix.isEmpty() ? p : rootPrefix + "/" + p;
            int strip = rootPrefix.isEmpty() ? 0 : rootPrefix.length() + 1;
            String start = pageToken == null ? fullPrefix : ObjectPaths.join(rootPrefix, pageToken);
            NavigableMap<String, Entry> tail = objects.tailMap(start, pageToken == null);
            List<ObjectMeta> out = new ArrayList<>();
            List<String> prefixes = new ArrayList<>();
            String last = null;
            boolean more = false;
            for (Map.Entry<String, Entry> en : tail.entrySet()) {
                String k = en.getKey();
                if (!k.startsWith(fullPrefix)) {
                    break;
                }
                String rel = k.substring(strip);
                String emitted;
                if (delimiter != null) {
                    int slash = rel.indexOf('/', p.length());
                    emitted = slash >= 0 ? rel.substring(0, slash + 1) : rel;
                } else {
                    emitted = rel;
                }
                if (emitted.equals(last) || (pageToken != null && emitted.compareTo(pageToken) <= 0)) {
                    continue; // same common prefix as the previous key, or already returned
                }
                if (out.size() + prefixes.size() == maxKeys) {
                    more = true;
                    break;
                }
                last = emitted;
                if (emitted.endsWith("/")) {
                    prefixes.add(emitted);
                } else {
                    out.add(meta(rel, en.getValue()));
                }
            }
            return new ListPage(out, prefixes, more ? last : null);
        });
    }

    @Override
    public Mono<Void> delete(String path) {
        return Mono.fromRunnable(() -> {
            String k = full(path);
            counters.request(OpClass.DELETE);
            objects.remove(k);
        });
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return Mono.fromCallable(() -> {
            String k = full(to);
            counters.request(OpClass.WRITE);
            Entry src = entry(from);
            Entry e = newEntry(src.data);
            objects.put(k, e);
            return meta(to, e);
        });
    }

    @Override
    public void close() {
        // Namespaces outlive stores on purpose (memory://name is shared per process).
    }

    @Override
    public String toString() {
        return "InMemoryObjectStore[" + uri() + "]";
    }
}
