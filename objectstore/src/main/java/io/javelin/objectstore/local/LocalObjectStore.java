package io.javelin.objectstore.local;

import io.javelin.objectstore.InvalidPathException;
import io.javelin.objectstore.InvalidRangeException;
import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectPaths;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStoreException;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.internal.BlockingReads;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.Callable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Objects as files under a root directory.
 *
 * <p>Every file-system call is a blocking syscall, so all of them run on one bounded scheduler
 * owned by the store ({@code javelin-local-io}); callers' threads never block.
 *
 * <p>Writes never expose a partial object: data goes to a temporary file in the target directory,
 * is fsynced, then appears atomically (rename for put, hard link for create-if-absent, which fails
 * with EEXIST if the name is taken), and the directory is fsynced so the name survives a crash.
 * Listings are sorted by key, so the store reports lexical order.
 */
public final class LocalObjectStore implements ObjectStore {

    /** Temporary files start with this and are never listed. */
    static final String TMP_PREFIX = ".javelin-tmp-";

    private final Path root;
    private final StoreCounters counters;
    private final Scheduler io;
    private final boolean ownsScheduler;
    private final StoreTraits traits;
    private final ChannelCache channels;

    /** Read channels kept open for ranged reads (data files), least recently used closed first. */
    public static final int OPEN_CHANNELS = 128;

    public LocalObjectStore(Path root, int ioThreads) {
        this(root, Schedulers.newBoundedElastic(ioThreads, 100_000, "javelin-local-io", 60, true), true);
    }

    public LocalObjectStore(Path root, Scheduler io, boolean ownsScheduler) {
        this.root = root.toAbsolutePath().normalize();
        this.counters = new StoreCounters("file://" + this.root);
        this.io = io;
        this.ownsScheduler = ownsScheduler;
        this.traits = StoreTraits.localDefaults();
        this.channels = new ChannelCache(OPEN_CHANNELS);
    }

    public Path root() {
        return root;
    }

    @Override
    public String uri() {
        return "file://" + root;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    @Override
    public StoreCounters counters() {
        return counters;
    }

    /** The file for a key; rejects keys that would leave the root. */
    Path file(String key) {
        ObjectPaths.checkKey(key);
        Path p = root.resolve(key).normalize();
        if (!p.startsWith(root) || p.equals(root)) {
            throw new InvalidPathException(key, "escapes the store root " + root);
        }
        if (p.getFileName().toString().startsWith(TMP_PREFIX)) {
            throw new InvalidPathException(key, "names starting with " + TMP_PREFIX + " are reserved");
        }
        return p;
    }

    /**
     * Refuses symbolic links below the root (checked on the I/O thread, as it touches the disk): a
     * link inside a dataset could point anywhere, and following it would read, overwrite or delete
     * outside the store. The root itself may be a link.
     */
    Path noLinks(String key, Path f) {
        for (Path p = f; p != null && !p.equals(root) && p.startsWith(root); p = p.getParent()) {
            if (Files.isSymbolicLink(p)) {
                throw new InvalidPathException(key, "goes through the symbolic link " + root.relativize(p)
                        + "; links inside a local store are not followed");
            }
        }
        return f;
    }

    private <T> Mono<T> blocking(Callable<T> call) {
        return Mono.fromCallable(call).subscribeOn(io);
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        return Mono.defer(() -> {
            Path f = file(path);
            return BlockingReads.on(io, () -> readCached(path, f, offset, length));
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    /**
     * A ranged read through a cached open channel (see {@link ChannelCache}). A reader interrupted by a
     * cancel closes the shared channel under the others (FileChannel is interruptible): they reopen.
     */
    private Buffer readCached(String key, Path f, long offset, long length) {
        Buffer[] out = new Buffer[1];
        readCached(key, f, offset, length, () -> {
            if (out[0] != null) {
                out[0].release(); // a retry after a closed channel: start over in a fresh buffer
            }
            out[0] = Buffer.allocateUninitialized(length, "local-read"); // readFully overwrites it all
            return out[0].segment();
        }, () -> {
            if (out[0] != null) {
                out[0].release();
            }
        });
        return out[0];
    }

    /**
     * All ranges in one blocking task (a take's scattered rows: one thread hand-off instead of one per range,
     * each read served from the page cache in microseconds). Buffers in the order given.
     */
    @Override
    public boolean batchesReads() {
        return true;
    }

    @Override
    public Mono<List<Buffer>> readBatch(String path, List<io.javelin.objectstore.ByteRange> ranges) {
        return Mono.defer(() -> {
            Path f = file(path);
            return BlockingReads.onAll(io, () -> {
                List<Buffer> out = new ArrayList<>(ranges.size());
                try {
                    for (io.javelin.objectstore.ByteRange r : ranges) {
                        out.add(readCached(path, f, r.offset(), r.length()));
                    }
                    return out;
                } catch (Throwable t) {
                    out.forEach(Buffer::release);
                    throw t;
                }
            });
        });
    }

    @Override
    public Mono<Buffer> readInto(String path, long offset, Buffer dst) {
        // whoever flips the flag releases dst on failure: the read (once it started) or a cancel before it
        java.util.concurrent.atomic.AtomicBoolean started = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable dropIfNotStarted = () -> {
            if (started.compareAndSet(false, true)) {
                dst.release();
            }
        };
        return Mono.defer(() -> {
            Path f = file(path);
            return BlockingReads.on(io, () -> {
                if (!started.compareAndSet(false, true)) {
                    throw new java.util.concurrent.CancellationException("read of " + path + " cancelled");
                }
                try {
                    readCached(path, f, offset, dst.size(), dst::segment, () -> { });
                    return dst;
                } catch (Throwable t) {
                    dst.release();
                    throw t;
                }
            });
        }).doOnCancel(dropIfNotStarted).doOnError(e -> dropIfNotStarted.run()).doOnDiscard(Buffer.class, Buffer::release);
    }

    private void readCached(String key, Path f, long offset, long length, java.util.function.Supplier<MemorySegment> dst,
                            Runnable onFailure) {
        counters.request(OpClass.READ);
        for (int attempt = 0; ; attempt++) {
            ChannelCache.Lease lease;
            try {
                lease = channels.acquire(f);
            } catch (NoSuchFileException e) {
                throw new ObjectNotFoundException(key, e);
            } catch (IOException e) {
                throw new ObjectStoreException("read " + key + " failed: " + e, e);
            }
            try {
                long size = lease.size();
                if (offset + length > size && offset + length > (size = lease.refreshSize())) {
                    throw new InvalidRangeException(key, offset, length, size);
                }
                try {
                    readFully(lease.channel, dst.get(), offset, key);
                } catch (java.nio.channels.ClosedChannelException e) {
                    throw e;
                } catch (Throwable t) {
                    onFailure.run();
                    throw t;
                }
                counters.bytes(OpClass.READ, length);
                return;
            } catch (java.nio.channels.ClosedChannelException e) {
                channels.invalidate(f, lease);
                if (attempt >= 3) {
                    onFailure.run();
                    throw new ObjectStoreException("read " + key + " failed: " + e, e);
                }
                // An interrupt here may be a cancel meant for an earlier task of this pooled thread: clear it
                // and read again. A read that really was cancelled finishes and its buffer is released by
                // the cancel (BlockingReads), so retrying never leaks.
                Thread.interrupted();
            } catch (IOException e) {
                channels.invalidate(f, lease);
                throw new ObjectStoreException("read " + key + " failed: " + e, e);
            } finally {
                lease.release();
            }
        }
    }

    /** Channels open for ranged reads now (tests). */
    int openChannels() {
        return channels.size();
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return Mono.defer(() -> {
            Path f = file(path);
            return BlockingReads.on(io, () -> readRange(path, f, 0, length, true));
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return Mono.defer(() -> {
            Path f = file(path);
            return BlockingReads.on(io, () -> readRange(path, f, 0, -1, false));
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    /** length -1 = whole file; tail = last min(length, size) bytes. */
    private Buffer readRange(String key, Path f, long offset, long length, boolean tail) throws IOException {
        counters.request(OpClass.READ);
        noLinks(key, f);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            long size = ch.size();
            long off = offset;
            long len = length;
            if (tail) {
                len = Math.min(length, size);
                off = size - len;
            } else if (length < 0) {
                len = size;
            } else if (offset + length > size) {
                throw new InvalidRangeException(key, offset, length, size);
            }
            Buffer b = Buffer.allocateUninitialized(len, "local-read");
            try {
                readFully(ch, b.segment(), off, key);
            } catch (Throwable t) {
                b.release();
                throw t;
            }
            counters.bytes(OpClass.READ, len);
            return b;
        } catch (NoSuchFileException e) {
            throw new ObjectNotFoundException(key, e);
        } catch (IOException e) {
            throw new ObjectStoreException("read " + key + " failed: " + e, e);
        }
    }

    static void readFully(FileChannel ch, MemorySegment dst, long position, String key) throws IOException {
        ByteBuffer bb = dst.asByteBuffer();
        long pos = position;
        while (bb.hasRemaining()) {
            int n = ch.read(bb, pos);
            if (n < 0) {
                throw new ObjectStoreException("read " + key + " hit end of file at " + pos + " (file shrank while reading)");
            }
            pos += n;
        }
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return Mono.defer(() -> {
            Path f = file(path);
            return blocking(() -> {
                counters.request(OpClass.READ);
                noLinks(path, f);
                try {
                    return meta(path, f);
                } catch (NoSuchFileException e) {
                    throw new ObjectNotFoundException(path, e);
                }
            });
        });
    }

    private ObjectMeta meta(String key, Path f) throws IOException {
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        if (!a.isRegularFile()) {
            throw new ObjectNotFoundException(key, null);
        }
        long mtime = a.lastModifiedTime().toInstant().toEpochMilli() * 1000
                + a.lastModifiedTime().toInstant().getNano() / 1000 % 1000;
        Object fileKey = a.fileKey();
        String eTag = Integer.toHexString(fileKey == null ? 0 : fileKey.hashCode()) + "-"
                + Long.toHexString(mtime) + "-" + Long.toHexString(a.size());
        return new ObjectMeta(key, a.size(), a.lastModifiedTime().toInstant(), eTag, null);
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return Mono.defer(() -> {
            Path f = file(path);
            return blocking(() -> {
                counters.request(OpClass.WRITE);
                Path tmp = writeTemp(f, data);
                try {
                    moveIntoPlace(tmp, f);
                } finally {
                    Files.deleteIfExists(tmp);
                    channels.invalidate(f);
                }
                counters.bytes(OpClass.WRITE, data.byteSize());
                return meta(path, f);
            });
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return Mono.defer(() -> {
            Path f = file(path);
            return Mono.usingWhen(
                    blocking(() -> openTemp(f)),
                    tmp -> data.concatMap(chunk -> blocking(() -> {
                        int n = chunk.remaining();
                        while (chunk.hasRemaining()) {
                            tmp.channel.write(chunk);
                        }
                        counters.bytes(OpClass.WRITE, n);
                        return n;
                    }), 0).then(blocking(() -> {
                        counters.request(OpClass.WRITE);
                        tmp.channel.force(true);
                        tmp.channel.close();
                        moveIntoPlace(tmp.path, f);
                        channels.invalidate(f);
                        return meta(path, f);
                    })),
                    tmp -> blocking(() -> tmp.discard()),
                    (tmp, err) -> blocking(() -> tmp.discard()),
                    tmp -> blocking(() -> tmp.discard()));
        });
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return Mono.defer(() -> {
            Path f = file(path);
            return blocking(() -> {
                counters.request(OpClass.WRITE);
                noLinks(path, f);
                if (Files.exists(f)) {
                    throw new ObjectAlreadyExistsException(path, 0, "EEXIST", null);
                }
                Path tmp = writeTemp(f, data);
                try {
                    // link(2) publishes the fully written, fsynced file under the final name, or
                    // fails with EEXIST: one winner, never a torn object.
                    Files.createLink(f, tmp);
                } catch (FileAlreadyExistsException e) {
                    throw new ObjectAlreadyExistsException(path, 0, "EEXIST", e);
                } finally {
                    Files.deleteIfExists(tmp);
                    channels.invalidate(f);
                }
                fsyncDirectory(f.getParent());
                counters.bytes(OpClass.WRITE, data.byteSize());
                return meta(path, f);
            });
        });
    }

    private Path writeTemp(Path f, MemorySegment data) throws IOException {
        TempFile tmp = openTemp(f);
        try {
            ByteBuffer bb = data.asByteBuffer();
            while (bb.hasRemaining()) {
                tmp.channel.write(bb);
            }
            tmp.channel.force(true);
            tmp.channel.close();
            return tmp.path;
        } catch (IOException | RuntimeException e) {
            tmp.discard();
            throw e;
        }
    }

    private TempFile openTemp(Path f) throws IOException {
        noLinks(root.relativize(f).toString(), f);
        Path dir = f.getParent();
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new ObjectStoreException("cannot write " + root.relativize(f) + ": " + root.relativize(dir)
                    + " is an object, not a prefix");
        }
        Files.createDirectories(dir);
        Path tmp = dir.resolve(TMP_PREFIX + UUID.randomUUID() + "-" + f.getFileName());
        FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new TempFile(tmp, ch);
    }

    private void moveIntoPlace(Path tmp, Path f) throws IOException {
        try {
            Files.move(tmp, f, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new ObjectStoreException("file system under " + root + " cannot rename atomically", e);
        }
        fsyncDirectory(f.getParent());
    }

    private static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems refuse fsync on a directory; the rename is still atomic there.
            if (!(e.getMessage() != null && e.getMessage().contains("Is a directory"))) {
                throw e;
            }
        }
    }

    private record TempFile(Path path, FileChannel channel) {
        Void discard() throws IOException {
            if (channel.isOpen()) {
                channel.close();
            }
            Files.deleteIfExists(path);
            return null;
        }
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return Mono.defer(() -> {
            String p = ObjectPaths.checkPrefix(prefix);
            if (delimiter != null && !delimiter.equals("/")) {
                throw new IllegalArgumentException("Unsupported delimiter: '" + delimiter + "' (only '/')");
            }
            if (maxKeys < 1 || maxKeys > 1000) {
                throw new IllegalArgumentException("Invalid maxKeys: " + maxKeys + " (must be 1..1000)");
            }
            return blocking(() -> {
                counters.request(OpClass.LIST);
                return listSorted(p, delimiter != null, pageToken, maxKeys);
            });
        });
    }

    private ListPage listSorted(String prefix, boolean delimited, String after, int maxKeys) throws IOException {
        // The directory that holds every key starting with prefix, and the name filter inside it.
        int slash = prefix.lastIndexOf('/');
        String dirKey = slash < 0 ? "" : prefix.substring(0, slash);
        Path dir = dirKey.isEmpty() ? root : root.resolve(dirKey);
        if (!Files.isDirectory(dir)) {
            return new ListPage(List.of(), List.of(), null);
        }
        // Entries: keys of objects, and (delimited) keys of prefixes ending in '/'. One sorted set
        // so pages interleave the two in key order, as S3 does.
        TreeSet<String> entries = new TreeSet<>();
        if (delimited) {
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
                for (Path child : ds) {
                    String name = child.getFileName().toString();
                    if (name.startsWith(TMP_PREFIX)) {
                        continue;
                    }
                    String key = dirKey.isEmpty() ? name : dirKey + "/" + name;
                    if (!key.startsWith(prefix)) {
                        continue;
                    }
                    if (Files.isDirectory(child)) {
                        if (hasObjects(child)) {
                            entries.add(key + "/");
                        }
                    } else if (Files.isRegularFile(child)) {
                        entries.add(key);
                    }
                }
            }
        } else {
            walkObjects(dir, x -> {
                String k = root.relativize(x).toString();
                if (k.startsWith(prefix)) {
                    entries.add(k);
                }
                return true;
            });
        }
        List<ObjectMeta> objects = new ArrayList<>();
        List<String> prefixes = new ArrayList<>();
        var it = (after == null ? entries : entries.tailSet(after, false)).iterator();
        String last = null;
        while (it.hasNext() && objects.size() + prefixes.size() < maxKeys) {
            String k = it.next();
            last = k;
            if (k.endsWith("/")) {
                prefixes.add(k);
            } else {
                try {
                    objects.add(meta(k, root.resolve(k)));
                } catch (NoSuchFileException e) {
                    // deleted while listing: skip, as object stores do
                }
            }
        }
        return new ListPage(objects, prefixes, it.hasNext() ? last : null);
    }

    private static boolean hasObjects(Path dir) throws IOException {
        boolean[] found = {false};
        walkObjects(dir, x -> {
            found[0] = true;
            return false;
        });
        return found[0];
    }

    /**
     * Visits every regular, non-temporary file under {@code dir} until {@code visitor} returns false.
     * Entries that vanish during the walk (another writer's temp file renamed or a delete) are skipped,
     * as an object-store listing would; {@code Files.walk} would fail the whole listing instead.
     */
    private static void walkObjects(Path dir, java.util.function.Predicate<Path> visitor) throws IOException {
        walkFiles(dir, (file, attrs) -> file.getFileName().toString().startsWith(TMP_PREFIX) || visitor.test(file));
    }

    private interface FileVisit {
        boolean visit(Path file, java.nio.file.attribute.BasicFileAttributes attrs) throws IOException;
    }

    /** Every regular file under {@code dir} (temporaries included) until {@code visitor} returns false; vanished entries skipped. */
    private static void walkFiles(Path dir, FileVisit visitor) throws IOException {
        Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
            @Override
            public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs)
                    throws IOException {
                if (!attrs.isRegularFile()) {
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
                return visitor.visit(file, attrs) ? java.nio.file.FileVisitResult.CONTINUE : java.nio.file.FileVisitResult.TERMINATE;
            }

            @Override
            public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
    }

    @Override
    public Mono<Integer> removeStaleTemporaries(String prefix, java.time.Instant olderThan) {
        return Mono.defer(() -> {
            String p = ObjectPaths.checkPrefix(prefix);
            int slash = p.lastIndexOf('/');
            Path dir = slash < 0 ? root : root.resolve(p.substring(0, slash));
            return blocking(() -> {
                if (!Files.isDirectory(dir)) {
                    return 0;
                }
                int[] removed = {0};
                walkFiles(dir, (file, attrs) -> {
                    // younger temporaries may belong to a write still in flight (this or another process)
                    if (file.getFileName().toString().startsWith(TMP_PREFIX) && root.relativize(file).toString().startsWith(p)
                            && attrs.lastModifiedTime().toInstant().isBefore(olderThan) && Files.deleteIfExists(file)) {
                        removed[0]++;
                    }
                    return true;
                });
                return removed[0];
            });
        });
    }

    @Override
    public Mono<Void> delete(String path) {
        return Mono.defer(() -> {
            Path f = file(path);
            return blocking(() -> {
                counters.request(OpClass.DELETE);
                noLinks(path, f);
                if (Files.isDirectory(f)) {
                    return null; // a prefix, not an object: nothing to delete
                }
                Files.deleteIfExists(f);
                channels.invalidate(f);
                return null;
            });
        }).then();
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return Mono.defer(() -> {
            Path src = file(from);
            Path dst = file(to);
            return blocking(() -> {
                counters.request(OpClass.WRITE);
                noLinks(from, src);
                TempFile tmp = openTemp(dst);
                try (FileChannel in = FileChannel.open(src, StandardOpenOption.READ)) {
                    long size = in.size();
                    long pos = 0;
                    while (pos < size) {
                        pos += in.transferTo(pos, size - pos, tmp.channel);
                    }
                    tmp.channel.force(true);
                    tmp.channel.close();
                    moveIntoPlace(tmp.path, dst);
                    channels.invalidate(dst);
                    counters.bytes(OpClass.WRITE, size);
                } catch (NoSuchFileException e) {
                    throw new ObjectNotFoundException(from, e);
                } finally {
                    tmp.discard();
                }
                return meta(to, dst);
            });
        });
    }

    @Override
    public void close() {
        channels.close();
        if (ownsScheduler) {
            io.dispose();
        }
    }

    @Override
    public String toString() {
        return "LocalObjectStore[" + root + "]";
    }
}
