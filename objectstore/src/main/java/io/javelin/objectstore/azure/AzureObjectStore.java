package io.javelin.objectstore.azure;

import com.azure.core.util.BinaryData;
import com.azure.storage.blob.BlobAsyncClient;
import com.azure.storage.blob.BlobContainerAsyncClient;
import com.azure.storage.blob.models.BlobItem;
import com.azure.storage.blob.models.BlobRange;
import com.azure.storage.blob.models.BlobRequestConditions;
import com.azure.storage.blob.models.BlobStorageException;
import com.azure.storage.blob.models.ListBlobsOptions;
import com.azure.storage.blob.options.BlockBlobCommitBlockListOptions;
import com.azure.storage.blob.options.BlockBlobSimpleUploadOptions;
import com.azure.core.util.polling.LongRunningOperationStatus;
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
import io.javelin.objectstore.internal.Bodies;
import io.javelin.objectstore.internal.Parts;
import io.javelin.objectstore.internal.UploadConfig;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.metrics.StoreCounters;
import io.javelin.objectstore.throttle.ErrorClassifier;
import io.javelin.objectstore.throttle.RequestPolicy;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Azure Blob Storage through the azure-storage-blob async client (reactor-netty), SDK retries off.
 *
 * <p>Create-if-absent is Put Blob (or Put Block List) with {@code If-None-Match: *}. A lost race
 * comes back as 409 BlobAlreadyExists, and a stale condition as 412 ConditionNotMet: both mean
 * "lost". Azure has no suffix ranges, so a tail read costs a HEAD plus a ranged GET.
 */
public final class AzureObjectStore implements ObjectStore {

    private final BlobContainerAsyncClient container;
    private final String rootPrefix;
    private final String uri;
    private final StoreCounters counters;
    private final RequestPolicy policy;
    private final UploadConfig upload;
    private final StoreTraits traits = StoreTraits.cloudDefaults();

    public AzureObjectStore(BlobContainerAsyncClient container, String uri, String rootPrefix, StoreCounters counters,
            RequestPolicy policy, UploadConfig upload) {
        this.container = container;
        this.rootPrefix = rootPrefix;
        this.uri = uri;
        this.counters = counters;
        this.policy = policy;
        this.upload = upload;
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

    private BlobAsyncClient blob(String path) {
        return container.getBlobAsyncClient(ObjectPaths.join(rootPrefix, ObjectPaths.checkKey(path)));
    }

    private String rel(String key) {
        return rootPrefix.isEmpty() ? key : key.substring(rootPrefix.length() + 1);
    }

    private <T> Mono<T> send(OpClass op, String what, String path, boolean create, Supplier<Mono<T>> call) {
        return Mono.defer(() -> {
            counters.request(op);
            return call.get();
        }).onErrorMap(e -> map(e, what, path, create));
    }

    static Throwable map(Throwable e, String what, String path, boolean create) {
        if (e instanceof ObjectStoreException) {
            return e;
        }
        if (e instanceof BlobStorageException be) {
            String code = be.getErrorCode() == null ? null : be.getErrorCode().toString();
            if ("ContainerNotFound".equals(code)) {
                return new ObjectStoreException(what + " " + path + " failed: container does not exist", 404, code, be);
            }
            if (be.getStatusCode() == 416) {
                return new ObjectStoreException(what + " " + path + " failed: range not satisfiable", 416, code, be);
            }
            return ErrorClassifier.map(what, path, be.getStatusCode(), code, be, create);
        }
        if (e instanceof com.azure.core.exception.HttpResponseException he && he.getResponse() != null) {
            return ErrorClassifier.map(what, path, he.getResponse().getStatusCode(), null, he, create);
        }
        if (e instanceof IOException || e instanceof TimeoutException || e instanceof io.netty.channel.ChannelException
                || e.getCause() instanceof IOException) {
            return new TransientObjectStoreException(what + " " + path + " failed: " + e, 0, null, e);
        }
        return e;
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        if (length == 0) {
            return head(path).flatMap(m -> offset > m.size()
                    ? Mono.error(new InvalidRangeException(path, offset, 0, m.size()))
                    : Mono.fromSupplier(() -> Buffer.allocate(0, "azure-read")));
        }
        return download(path, new BlobRange(offset, length), offset, length);
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        return head(path).flatMap(m -> {
            long len = Math.min(length, m.size());
            if (len == 0) {
                return Mono.fromSupplier(() -> Buffer.allocate(0, "azure-read"));
            }
            return download(path, new BlobRange(m.size() - len, len), m.size() - len, len);
        });
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return download(path, null, -1, -1);
    }

    /** A ranged download whose body is copied straight into {@code dst} (a split page's slice): no second copy. */
    @Override
    public Mono<Buffer> readInto(String path, long offset, Buffer dst) {
        long length = dst.size();
        if (length == 0) {
            return ObjectStore.super.readInto(path, offset, dst);
        }
        return Bodies.intoClaimed(dst, claim -> download(path, new BlobRange(offset, length), offset, length, claim));
    }

    private Mono<Buffer> download(String path, BlobRange range, long offset, long length) {
        return download(path, range, offset, length, null);
    }

    /**
     * {@code target}: null for a new buffer; else claims the caller's buffer when the body arrives (null
     * from it: the read was cancelled meanwhile, so the body is drained and nothing emitted).
     */
    private Mono<Buffer> download(String path, BlobRange range, long offset, long length,
                                  java.util.function.Supplier<Buffer> target) {
        return Mono.defer(() -> {
            BlobAsyncClient b = blob(path);
            return send(OpClass.READ, "read", path, false, () -> b.downloadStreamWithResponse(range, null, null, false))
                    .flatMap(r -> {
                        var h = r.getDeserializedHeaders();
                        long expected = length >= 0 ? length : h.getContentLength();
                        if (length >= 0 && h.getContentRange() != null) {
                            long total = totalFromContentRange(h.getContentRange());
                            if (total >= 0 && offset + length > total) {
                                return r.getValue().then(Mono.error(new InvalidRangeException(path, offset, length, total)));
                            }
                        }
                        if (target == null) {
                            return Bodies.collect(r.getValue(), expected, path, counters, "azure-read")
                                    .onErrorMap(e -> map(e, "read", path, false));
                        }
                        return Mono.defer(() -> { // claimed at subscription (Bodies.intoClaimed)
                            Buffer dst = target.get();
                            return dst == null ? r.getValue().then(Mono.<Buffer>empty())
                                    : Bodies.collectInto(r.getValue(), dst, path, counters).onErrorMap(e -> map(e, "read", path, false));
                        });
                    });
        }).onErrorMap(e -> e instanceof ObjectStoreException o && o.httpStatus() == 416 && length >= 0
                ? new InvalidRangeException(path, offset, length, -1) : e)
                .doOnDiscard(Buffer.class, Buffer::release);
    }

    private static long totalFromContentRange(String cr) {
        int slash = cr.lastIndexOf('/');
        try {
            return slash < 0 ? -1 : Long.parseLong(cr.substring(slash + 1).trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return Mono.defer(() -> {
            BlobAsyncClient b = blob(path);
            return send(OpClass.READ, "head", path, false, b::getProperties)
                    .map(p -> new ObjectMeta(path, p.getBlobSize(), p.getLastModified().toInstant(), p.getETag(),
                            p.getVersionId()));
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return putSingle(path, data, false);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        return putSingle(path, data, true);
    }

    private Mono<ObjectMeta> putSingle(String path, MemorySegment data, boolean ifAbsent) {
        return Mono.defer(() -> {
            BlobAsyncClient b = blob(path);
            BlockBlobSimpleUploadOptions opts = new BlockBlobSimpleUploadOptions(BinaryData.fromByteBuffer(data.asByteBuffer()));
            if (ifAbsent) {
                opts.setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*"));
            }
            return send(OpClass.WRITE, ifAbsent ? "create" : "put", path, ifAbsent,
                    () -> b.getBlockBlobAsyncClient().uploadWithResponse(opts))
                    .doOnSuccess(r -> counters.bytes(OpClass.WRITE, data.byteSize()))
                    .map(r -> new ObjectMeta(path, data.byteSize(), r.getValue().getLastModified().toInstant(),
                            r.getValue().getETag(), r.getValue().getVersionId()));
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return streamed(path, data, false);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, Flux<ByteBuffer> data) {
        return streamed(path, data, true);
    }

    private Mono<ObjectMeta> streamed(String path, Flux<ByteBuffer> data, boolean ifAbsent) {
        return Mono.defer(() -> {
            BlobAsyncClient b = blob(path);
            // Not UUID.randomUUID(): SecureRandom may read /dev/urandom, a blocking call on this thread.
            String prefix = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() | Long.MIN_VALUE);
            AtomicLong total = new AtomicLong();
            return Parts.chunk(data, upload.partSize(), "azure-block")
                    .switchOnFirst((first, parts) -> {
                        if (first.hasValue() && first.get().last()) {
                            return parts.concatMap(p -> Mono.usingWhen(Mono.just(p),
                                    q -> ifAbsent
                                            ? policy.executeCreate("create " + path, () -> putSingle(path, q.buffer().segment(), true))
                                            : policy.execute(OpClass.WRITE, "put " + path, () -> putSingle(path, q.buffer().segment(), false)),
                                    q -> Mono.fromRunnable(q::release)));
                        }
                        // Block ids must all have the same length: a fixed-width part number.
                        return parts.flatMapSequential(p -> Mono.usingWhen(Mono.just(p), q -> {
                                    String id = Base64.getEncoder().encodeToString(
                                            (prefix + String.format("-%06d", q.number())).getBytes(StandardCharsets.UTF_8));
                                    long size = q.buffer().size();
                                    return policy.execute(OpClass.WRITE, "stage block " + q.number() + " of " + path,
                                                    () -> send(OpClass.WRITE, "stage block", path, false,
                                                            () -> b.getBlockBlobAsyncClient().stageBlock(id,
                                                                    BinaryData.fromByteBuffer(q.buffer().segment().asByteBuffer()))))
                                            .then(Mono.fromSupplier(() -> {
                                                counters.bytes(OpClass.WRITE, size);
                                                total.addAndGet(size);
                                                return id;
                                            }));
                                }, q -> Mono.fromRunnable(q::release)), upload.concurrency())
                                .collectList()
                                .flatMap(ids -> {
                                    BlockBlobCommitBlockListOptions opts = new BlockBlobCommitBlockListOptions(ids);
                                    if (ifAbsent) {
                                        opts.setRequestConditions(new BlobRequestConditions().setIfNoneMatch("*"));
                                    }
                                    Supplier<Mono<ObjectMeta>> commit = () -> send(OpClass.WRITE, "commit blocks", path, ifAbsent,
                                            () -> b.getBlockBlobAsyncClient().commitBlockListWithResponse(opts))
                                            .map(r -> new ObjectMeta(path, total.get(), r.getValue().getLastModified().toInstant(),
                                                    r.getValue().getETag(), r.getValue().getVersionId()));
                                    return ifAbsent ? policy.executeCreate("commit " + path, commit)
                                            : policy.execute(OpClass.WRITE, "commit " + path, commit);
                                });
                    })
                    .doOnDiscard(Parts.Part.class, Parts.Part::release)
                    .single();
        });
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return Mono.defer(() -> {
            String p = ObjectPaths.checkPrefix(prefix);
            String full = rootPrefix.isEmpty() ? p : rootPrefix + "/" + p;
            ListBlobsOptions opts = new ListBlobsOptions().setPrefix(full).setMaxResultsPerPage(maxKeys);
            var paged = delimiter == null ? container.listBlobs(opts) : container.listBlobsByHierarchy(delimiter, opts);
            return send(OpClass.LIST, "list", prefix, false,
                    () -> (pageToken == null ? paged.byPage(maxKeys) : paged.byPage(pageToken, maxKeys)).next())
                    .map(page -> {
                        List<ObjectMeta> objects = new ArrayList<>();
                        List<String> prefixes = new ArrayList<>();
                        for (BlobItem item : page.getValue()) {
                            if (Boolean.TRUE.equals(item.isPrefix())) {
                                prefixes.add(rel(item.getName()));
                            } else {
                                var pr = item.getProperties();
                                objects.add(new ObjectMeta(rel(item.getName()), pr.getContentLength(),
                                        pr.getLastModified() == null ? null : pr.getLastModified().toInstant(), pr.getETag(),
                                        item.getVersionId()));
                            }
                        }
                        String next = page.getContinuationToken();
                        return new ListPage(objects, prefixes, next == null || next.isEmpty() ? null : next);
                    })
                    .defaultIfEmpty(new ListPage(List.of(), List.of(), null));
        });
    }

    @Override
    public Mono<Void> delete(String path) {
        return Mono.defer(() -> {
            BlobAsyncClient b = blob(path);
            return send(OpClass.DELETE, "delete", path, false, b::delete)
                    .onErrorResume(ObjectNotFoundException.class, e -> Mono.empty());
        });
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return Mono.defer(() -> {
            BlobAsyncClient src = blob(from);
            BlobAsyncClient dst = blob(to);
            return send(OpClass.WRITE, "copy", from, false,
                    () -> dst.beginCopy(src.getBlobUrl(), Duration.ofMillis(50)).last())
                    .flatMap(r -> r.getStatus() == LongRunningOperationStatus.SUCCESSFULLY_COMPLETED
                            ? head(to)
                            : Mono.error(new ObjectStoreException("copy " + from + " to " + to + " ended " + r.getStatus())));
        });
    }

    @Override
    public void close() {
        // The async clients hold no resources of their own beyond the shared HTTP client.
    }

    @Override
    public String toString() {
        return "AzureObjectStore[" + uri + "]";
    }
}
