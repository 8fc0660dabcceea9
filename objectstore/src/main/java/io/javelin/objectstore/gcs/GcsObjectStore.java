package io.javelin.objectstore.gcs;

import com.google.cloud.BaseServiceException;
import com.google.cloud.ReadChannel;
import com.google.cloud.WriteChannel;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import io.javelin.objectstore.InvalidRangeException;
import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectPaths;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStoreException;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.TransientObjectStoreException;
import io.javelin.objectstore.TruncatedReadException;
import io.javelin.objectstore.internal.Parts;
import io.javelin.objectstore.internal.UploadConfig;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.throttle.ErrorClassifier;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Google Cloud Storage through google-cloud-storage (JSON API over HTTP), SDK retries off.
 *
 * <p>That client is blocking. Every call to it runs on {@link #blocking}, a bounded scheduler
 * named {@code javelin-gcs-blocking} that this store owns; callers' threads never block.
 *
 * <p>Create-if-absent is an upload with {@code ifGenerationMatch=0}; 412 conditionNotMet means
 * the race was lost. Generations are reported as {@link ObjectMeta#version()}.
 */
public final class GcsObjectStore implements ObjectStore {

    private final Storage storage;
    private final String bucket;
    private final String rootPrefix;
    private final String uri;
    private final StoreCounters counters;
    private final UploadConfig upload;
    /** The only place the blocking GCS client is called from. */
    private final Scheduler blocking;
    private final StoreTraits traits = StoreTraits.cloudDefaults();

    public GcsObjectStore(Storage storage, String bucket, String rootPrefix, StoreCounters counters, UploadConfig upload,
            Scheduler blocking) {
        this.storage = storage;
        this.bucket = bucket;
        this.rootPrefix = rootPrefix;
        this.uri = "gs://" + bucket + (rootPrefix.isEmpty() ? "" : "/" + rootPrefix);
        this.counters = counters;
        this.upload = upload;
        this.blocking = blocking;
    }

    @Override
    public String uri() {
        return uri;
    }

    @Override
    public StoreTraits traits() {
        return traits;
    }

    @Override
    public StoreCounters counters() {
        return counters;
    }

    private BlobId id(String path) {
        return BlobId.of(bucket, ObjectPaths.join(rootPrefix, ObjectPaths.checkKey(path)));
    }

    private String rel(String key) {
        return rootPrefix.isEmpty() ? key : key.substring(rootPrefix.length() + 1);
    }

    /** Like {@link #call} for reads: the buffer is freed if the subscriber cancels mid-read. */
    private Mono<Buffer> readCall(String what, String path, Callable<Buffer> body) {
        return io.javelin.objectstore.internal.BlockingReads.on(blocking, () -> {
            counters.request(OpClass.READ);
            try {
                return body.call();
            } catch (RuntimeException | IOException e) {
                throw map(e, what, path, false);
            }
        });
    }

    /** Runs one blocking client call on the GCS scheduler, counted and with errors mapped. */
    private <T> Mono<T> call(OpClass op, String what, String path, boolean create, Callable<T> body) {
        return Mono.fromCallable(() -> {
            counters.request(op);
            try {
                return body.call();
            } catch (RuntimeException | IOException e) {
                throw map(e, what, path, create);
            }
        }).subscribeOn(blocking);
    }

    static RuntimeException map(Throwable e, String what, String path, boolean create) {
        if (e instanceof ObjectStoreException o) {
            return o;
        }
        if (e instanceof BaseServiceException se) {
            int code = se.getCode();
            if (code <= 0) {
                return new TransientObjectStoreException(what + " " + path + " failed: " + se.getMessage(), 0,
                        se.getReason(), se);
            }
            if (code == 416) {
                return new ObjectStoreException(what + " " + path + " failed: range not satisfiable", 416, se.getReason(), se);
            }
            return ErrorClassifier.map(what, path, code, se.getReason(), se, create);
        }
        if (e instanceof IOException && e.getCause() instanceof BaseServiceException se) {
            return map(se, what, path, create); // ReadChannel wraps service errors in IOException
        }
        if (e instanceof IOException) {
            return new TransientObjectStoreException(what + " " + path + " failed: " + e, 0, null, e);
        }
        return e instanceof RuntimeException r ? r : new ObjectStoreException(what + " " + path + " failed", e);
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        return Mono.defer(() -> {
            BlobId id = id(path);
            if (length == 0) {
                return head(path).flatMap(m -> offset > m.size()
                        ? Mono.error(new InvalidRangeException(path, offset, 0, m.size()))
                        : Mono.fromSupplier(() -> Buffer.allocate(0, "gcs-read")));
            }
            return readCall("read", path, () -> readRange(path, id, offset, length))
                    .onErrorMap(e -> e instanceof ObjectStoreException o && o.httpStatus() == 416
                            ? new InvalidRangeException(path, offset, length, -1) : e);
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    private Buffer readRange(String path, BlobId id, long offset, long length) throws IOException {
        Buffer buf = Buffer.allocate(length, "gcs-read");
        try (ReadChannel rc = storage.reader(id)) {
            rc.seek(offset);
            rc.limit(offset + length);
            ByteBuffer bb = buf.segment().asByteBuffer();
            while (bb.hasRemaining()) {
                int n = rc.read(bb);
                if (n < 0) {
                    break;
                }
            }
            if (bb.hasRemaining()) {
                // Short: past the end of the object, or a truncated body. Only the size can tell.
                Blob b = storage.get(id);
                counters.request(OpClass.READ);
                if (b == null) {
                    throw new ObjectNotFoundException(path, null);
                }
                if (offset + length > b.getSize()) {
                    throw new InvalidRangeException(path, offset, length, b.getSize());
                }
                throw new TruncatedReadException(path, length, bb.position());
            }
            counters.bytes(OpClass.READ, length);
            return buf;
        } catch (Throwable t) {
            buf.release();
            throw t;
        }
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return head(path).flatMap(m -> {
            long len = Math.min(length, m.size());
            if (len == 0) {
                return Mono.fromSupplier(() -> Buffer.allocate(0, "gcs-read"));
            }
            // Pin the generation we sized, so a concurrent overwrite cannot mix two objects.
            BlobId id = BlobId.of(bucket, ObjectPaths.join(rootPrefix, path), Long.parseLong(m.version()));
            return readCall("read tail", path, () -> readRange(path, id, m.size() - len, len));
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return Mono.defer(() -> {
            BlobId id = id(path);
            return readCall("read", path, () -> {
                byte[] bytes = storage.readAllBytes(id);
                Buffer b = Buffer.copyOf(bytes, "gcs-read");
                counters.bytes(OpClass.READ, bytes.length);
                return b;
            });
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return Mono.defer(() -> {
            BlobId id = id(path);
            return call(OpClass.READ, "head", path, false, () -> {
                Blob b = storage.get(id);
                if (b == null) {
                    throw new ObjectNotFoundException(path, null);
                }
                return meta(path, b);
            });
        });
    }

    private static ObjectMeta meta(String path, Blob b) {
        return new ObjectMeta(path, b.getSize() == null ? -1 : b.getSize(),
                b.getUpdateTimeOffsetDateTime() == null ? null : b.getUpdateTimeOffsetDateTime().toInstant(),
                b.getEtag(), b.getGeneration() == null ? null : Long.toString(b.getGeneration()));
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return create(path, data, false);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return create(path, data, true);
    }

    private Mono<ObjectMeta> create(String path, MemorySegment data, boolean ifAbsent) {
        return Mono.defer(() -> {
            BlobId id = id(path);
            return call(OpClass.WRITE, ifAbsent ? "create" : "put", path, ifAbsent, () -> {
                BlobInfo info = BlobInfo.newBuilder(id).build();
                byte[] bytes = data.toArray(ValueLayout.JAVA_BYTE);
                Blob b = ifAbsent
                        ? storage.create(info, bytes, Storage.BlobTargetOption.doesNotExist(),
                                Storage.BlobTargetOption.disableGzipContent())
                        : storage.create(info, bytes, Storage.BlobTargetOption.disableGzipContent());
                counters.bytes(OpClass.WRITE, bytes.length);
                return meta(path, b);
            });
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return resumable(path, data, false);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, Flux<ByteBuffer> data) {
        return resumable(path, data, true);
    }

    /**
     * A stream that fits in one part is a single upload; a longer one is a resumable upload whose
     * chunks are the parts (one request each).
     */
    private Mono<ObjectMeta> resumable(String path, Flux<ByteBuffer> data, boolean ifAbsent) {
        return Mono.defer(() -> {
            BlobId id = id(path);
            // Resumable chunks must be multiples of 256 KiB.
            long chunk = Math.max(256 * 1024, (upload.partSize() / (256 * 1024)) * 256 * 1024);
            return Parts.chunk(data, chunk, "gcs-part")
                    .switchOnFirst((first, parts) -> {
                        if (first.hasValue() && first.get().last()) {
                            return parts.concatMap(p -> Mono.usingWhen(Mono.just(p),
                                    q -> create(path, q.buffer().segment(), ifAbsent),
                                    q -> Mono.fromRunnable(q::release)));
                        }
                        return writeResumable(path, id, parts, (int) chunk, ifAbsent);
                    })
                    .doOnDiscard(Parts.Part.class, Parts.Part::release)
                    .single();
        });
    }

    private Mono<ObjectMeta> writeResumable(String path, BlobId id, Flux<Parts.Part> parts, int chunk, boolean ifAbsent) {
        return Mono.usingWhen(
                call(OpClass.WRITE, "start upload", path, ifAbsent, () -> {
                    WriteChannel w = ifAbsent
                            ? storage.writer(BlobInfo.newBuilder(id).build(), Storage.BlobWriteOption.doesNotExist(),
                                    Storage.BlobWriteOption.disableGzipContent())
                            : storage.writer(BlobInfo.newBuilder(id).build(), Storage.BlobWriteOption.disableGzipContent());
                    w.setChunkSize(chunk);
                    return w;
                }),
                w -> parts.concatMap(p -> Mono.usingWhen(Mono.just(p), q -> call(OpClass.WRITE, "upload", path, ifAbsent, () -> {
                    ByteBuffer bb = q.buffer().segment().asByteBuffer();
                    int n = bb.remaining();
                    while (bb.hasRemaining()) {
                        w.write(bb);
                    }
                    counters.bytes(OpClass.WRITE, n);
                    return n;
                }), q -> Mono.fromRunnable(q::release)), 0).then(call(OpClass.WRITE, "finish upload", path, ifAbsent, () -> {
                    w.close();
                    Blob b = storage.get(id);
                    if (b == null) {
                        throw new ObjectStoreException("upload of " + path + " finished but the object is missing");
                    }
                    return meta(path, b);
                })),
                w -> Mono.empty(),
                (w, err) -> Mono.fromRunnable(() -> closeQuietly(w)).subscribeOn(blocking),
                w -> Mono.fromRunnable(() -> closeQuietly(w)).subscribeOn(blocking));
    }

    private static void closeQuietly(WriteChannel w) {
        try {
            if (w.isOpen()) {
                w.close();
            }
        } catch (IOException | RuntimeException e) {
            // The upload already failed; this only frees the channel.
        }
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return Mono.defer(() -> {
            String p = ObjectPaths.checkPrefix(prefix);
            String full = rootPrefix.isEmpty() ? p : rootPrefix + "/" + p;
            List<Storage.BlobListOption> opts = new ArrayList<>();
            opts.add(Storage.BlobListOption.prefix(full));
            opts.add(Storage.BlobListOption.pageSize(maxKeys));
            if (pageToken != null) {
                opts.add(Storage.BlobListOption.pageToken(pageToken));
            }
            if (delimiter != null) {
                opts.add(Storage.BlobListOption.delimiter(delimiter));
            }
            return call(OpClass.LIST, "list", prefix, false, () -> {
                var page = storage.list(bucket, opts.toArray(new Storage.BlobListOption[0]));
                List<ObjectMeta> objects = new ArrayList<>();
                List<String> prefixes = new ArrayList<>();
                for (Blob b : page.getValues()) {
                    if (b.isDirectory()) {
                        prefixes.add(rel(b.getName()));
                    } else {
                        objects.add(meta(rel(b.getName()), b));
                    }
                }
                String next = page.getNextPageToken();
                return new ListPage(objects, prefixes, next == null || next.isEmpty() ? null : next);
            });
        });
    }

    @Override
    public Mono<Void> delete(String path) {
        return Mono.defer(() -> {
            BlobId id = id(path);
            return call(OpClass.DELETE, "delete", path, false, () -> storage.delete(id)).then();
        });
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return Mono.defer(() -> {
            BlobId src = id(from);
            BlobId dst = id(to);
            return call(OpClass.WRITE, "copy", from, false, () -> meta(to,
                    storage.copy(Storage.CopyRequest.newBuilder().setSource(src).setTarget(dst).build()).getResult()));
        });
    }

    @Override
    public void close() {
        blocking.dispose();
        try {
            storage.close();
        } catch (Exception e) {
            // nothing left to do
        }
    }

    @Override
    public String toString() {
        return "GcsObjectStore[" + uri + "]";
    }
}
