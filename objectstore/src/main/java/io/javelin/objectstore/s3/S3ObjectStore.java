package io.javelin.objectstore.s3;

import io.javelin.objectstore.InvalidRangeException;
import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectMeta;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.core.async.AsyncResponseTransformer;
import software.amazon.awssdk.core.async.ResponsePublisher;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * S3 through the AWS SDK v2 async client on Netty. The client is built with SDK retries off
 * (see {@link S3Clients}); {@link RequestPolicy} retries and throttles instead.
 *
 * <p>Create-if-absent is {@code PutObject} with {@code If-None-Match: *}; streaming uploads above
 * the part size use multipart upload, each part retried on its own (same part number), and a
 * conditional create completes with {@code If-None-Match: *} too. 412 (and 409) on a conditional
 * request means the race was lost.
 */
public final class S3ObjectStore implements ObjectStore {

    private final S3AsyncClient client;
    private final String bucket;
    private final String rootPrefix;
    private final String uri;
    private final StoreCounters counters;
    private final RequestPolicy policy;
    private final UploadConfig upload;
    private final boolean conditionalPut;
    private final StoreTraits traits = StoreTraits.cloudDefaults();

    public S3ObjectStore(S3AsyncClient client, String bucket, String rootPrefix, StoreCounters counters,
            RequestPolicy policy, UploadConfig upload, boolean conditionalPut) {
        this.client = client;
        this.bucket = bucket;
        this.rootPrefix = rootPrefix;
        this.uri = "s3://" + bucket + (rootPrefix.isEmpty() ? "" : "/" + rootPrefix);
        this.counters = counters;
        this.policy = policy;
        this.upload = upload;
        this.conditionalPut = conditionalPut;
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

    private String key(String path) {
        return ObjectPaths.join(rootPrefix, ObjectPaths.checkKey(path));
    }

    private String rel(String key) {
        return rootPrefix.isEmpty() ? key : key.substring(rootPrefix.length() + 1);
    }

    /** Sends one request: counts it, and maps SDK failures to typed exceptions. */
    private <T> Mono<T> send(OpClass op, String what, String path, boolean create, Supplier<CompletableFuture<T>> call) {
        return Mono.defer(() -> {
            counters.request(op);
            return Mono.fromFuture(call, false);
        }).onErrorMap(e -> map(e, what, path, create));
    }

    static Throwable map(Throwable t, String what, String path, boolean create) {
        Throwable e = t;
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof ObjectStoreException) {
            return e;
        }
        if (e instanceof S3Exception se) {
            String code = se.awsErrorDetails() == null ? null : se.awsErrorDetails().errorCode();
            if ("NoSuchBucket".equals(code)) {
                return new ObjectStoreException(what + " " + path + " failed: bucket does not exist", 404, code, se);
            }
            return ErrorClassifier.map(what, path, se.statusCode(), code, se, create);
        }
        if (e instanceof SdkServiceException se) {
            return ErrorClassifier.map(what, path, se.statusCode(), null, se, create);
        }
        if (e instanceof SdkClientException || e instanceof IOException) {
            return new TransientObjectStoreException(what + " " + path + " failed: " + e.getMessage(), 0, null, e);
        }
        return e;
    }

    @Override
    public Mono<Buffer> read(String path, long offset, long length) {
        if (length == 0) {
            return head(path).flatMap(m -> {
                if (offset > m.size()) {
                    return Mono.error(new InvalidRangeException(path, offset, 0, m.size()));
                }
                return Mono.fromSupplier(() -> Buffer.allocate(0, "s3-read"));
            });
        }
        return get(path, "bytes=" + offset + "-" + (offset + length - 1), offset, length);
    }

    @Override
    public Mono<Buffer> readTail(String path, long length) {
        if (length == 0) {
            return head(path).map(m -> Buffer.allocate(0, "s3-read"));
        }
        return get(path, "bytes=-" + length, -1, -1);
    }

    @Override
    public Mono<Buffer> readAll(String path) {
        return get(path, null, -1, -1);
    }

    /** offset/length -1: take the length from the response (whole object, suffix range). */
    private Mono<Buffer> get(String path, String range, long offset, long length) {
        return Mono.defer(() -> {
            String key = key(path);
            return send(OpClass.READ, "read", path, false,
                    () -> client.getObject(b -> b.bucket(bucket).key(key).range(range),
                            AsyncResponseTransformer.<GetObjectResponse>toPublisher()))
                    .flatMap(rp -> body(path, rp, offset, length, null));
        }).doOnDiscard(Buffer.class, Buffer::release);
    }

    /** A ranged GET whose body is copied straight into {@code dst} (a split page's slice): no second copy. */
    @Override
    public Mono<Buffer> readInto(String path, long offset, Buffer dst) {
        long length = dst.size();
        if (length == 0) {
            return ObjectStore.super.readInto(path, offset, dst);
        }
        String range = "bytes=" + offset + "-" + (offset + length - 1);
        return Bodies.intoClaimed(dst, claim -> Mono.defer(() -> {
            String key = key(path);
            return send(OpClass.READ, "read", path, false,
                    () -> client.getObject(b -> b.bucket(bucket).key(key).range(range),
                            AsyncResponseTransformer.<GetObjectResponse>toPublisher()))
                    .flatMap(rp -> Mono.defer(() -> {
                        Buffer claimed = claim.get();
                        return claimed != null ? body(path, rp, offset, length, claimed) : Flux.from(rp).then(Mono.<Buffer>empty());
                    }));
        })).doOnDiscard(Buffer.class, Buffer::release);
    }

    /** {@code dst}: the buffer to fill (owned from here on: released on every failure), or null for a new one. */
    private Mono<Buffer> body(String path, ResponsePublisher<GetObjectResponse> rp, long offset, long length, Buffer dst) {
        GetObjectResponse r = rp.response();
        long contentLength = r.contentLength() == null ? -1 : r.contentLength();
        long expected = length >= 0 ? length : contentLength;
        if (length >= 0 && r.contentRange() != null) {
            // "bytes a-b/total": S3 returns a short range instead of failing when it runs past the end.
            long total = totalFromContentRange(r.contentRange());
            if (total >= 0 && offset + length > total) {
                release(dst);
                return Flux.from(rp).then(Mono.error(new InvalidRangeException(path, offset, length, total)));
            }
        }
        if (expected < 0) {
            release(dst);
            return Mono.error(new ObjectStoreException("read " + path + ": response has no Content-Length"));
        }
        Mono<Buffer> collected = dst == null ? Bodies.collect(Flux.from(rp), expected, path, counters, "s3-read")
                : Bodies.collectInto(Flux.from(rp), dst, path, counters);
        return collected.onErrorMap(e -> map(e, "read", path, false));
    }

    private static void release(Buffer b) {
        if (b != null) {
            b.release();
        }
    }

    static long totalFromContentRange(String contentRange) {
        int slash = contentRange.lastIndexOf('/');
        if (slash < 0 || contentRange.endsWith("*")) {
            return -1;
        }
        try {
            return Long.parseLong(contentRange.substring(slash + 1).trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public Mono<ObjectMeta> head(String path) {
        return Mono.defer(() -> {
            String key = key(path);
            return send(OpClass.READ, "head", path, false, () -> client.headObject(b -> b.bucket(bucket).key(key)))
                    .map(h -> new ObjectMeta(path, h.contentLength(), h.lastModified(), h.eTag(), h.versionId()));
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, MemorySegment data) {
        return putSingle(path, data, false);
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, MemorySegment data) {
        if (!conditionalPut) {
            return Mono.error(new UnsupportedOperationException(
                    "create-if-absent is disabled for " + uri + " (aws_conditional_put=disabled)"));
        }
        return putSingle(path, data, true);
    }

    private Mono<ObjectMeta> putSingle(String path, MemorySegment data, boolean ifAbsent) {
        return Mono.defer(() -> {
            String key = key(path);
            return send(OpClass.WRITE, ifAbsent ? "create" : "put", path, ifAbsent, () -> client.putObject(
                    b -> b.bucket(bucket).key(key).contentLength(data.byteSize()).ifNoneMatch(ifAbsent ? "*" : null),
                    AsyncRequestBody.fromByteBufferUnsafe(data.asByteBuffer())))
                    .doOnSuccess(r -> counters.bytes(OpClass.WRITE, data.byteSize()))
                    .map(r -> new ObjectMeta(path, data.byteSize(), null, r.eTag(), r.versionId()));
        });
    }

    @Override
    public Mono<ObjectMeta> put(String path, Flux<ByteBuffer> data) {
        return Mono.defer(() -> {
            String key = key(path);
            return Parts.chunk(data, upload.partSize(), "s3-part")
                    .switchOnFirst((first, parts) -> {
                        if (first.hasValue() && first.get().last()) {
                            return parts.concatMap(p -> Mono.usingWhen(Mono.just(p),
                                    q -> policy.execute(OpClass.WRITE, "put " + path,
                                            () -> putSingle(path, q.buffer().segment(), false)),
                                    q -> Mono.fromRunnable(q::release)));
                        }
                        return multipart(path, key, parts, false);
                    })
                    .doOnDiscard(Parts.Part.class, Parts.Part::release)
                    .single();
        });
    }

    @Override
    public Mono<ObjectMeta> putIfAbsent(String path, Flux<ByteBuffer> data) {
        if (!conditionalPut) {
            return Mono.error(new UnsupportedOperationException(
                    "create-if-absent is disabled for " + uri + " (aws_conditional_put=disabled)"));
        }
        return Mono.defer(() -> {
            String key = key(path);
            return Parts.chunk(data, upload.partSize(), "s3-part")
                    .switchOnFirst((first, parts) -> {
                        if (first.hasValue() && first.get().last()) {
                            return parts.concatMap(p -> Mono.usingWhen(Mono.just(p),
                                    q -> policy.executeCreate("create " + path,
                                            () -> putSingle(path, q.buffer().segment(), true)),
                                    q -> Mono.fromRunnable(q::release)));
                        }
                        return multipart(path, key, parts, true);
                    })
                    .doOnDiscard(Parts.Part.class, Parts.Part::release)
                    .single();
        });
    }

    private Mono<ObjectMeta> multipart(String path, String key, Flux<Parts.Part> parts, boolean ifAbsent) {
        return policy.execute(OpClass.WRITE, "start upload " + path,
                () -> send(OpClass.WRITE, "start upload", path, false,
                        () -> client.createMultipartUpload(b -> b.bucket(bucket).key(key))))
                .flatMap(created -> {
                    String uploadId = created.uploadId();
                    java.util.concurrent.atomic.AtomicLong total = new java.util.concurrent.atomic.AtomicLong();
                    return parts.flatMapSequential(p -> Mono.usingWhen(Mono.just(p),
                                    q -> policy.execute(OpClass.WRITE, "upload part " + q.number() + " of " + path,
                                            () -> uploadPart(path, key, uploadId, q))
                                            .doOnSuccess(c -> total.addAndGet(q.buffer().size())),
                                    q -> Mono.fromRunnable(q::release)), upload.concurrency())
                            .collectList()
                            .flatMap(done -> {
                                // set when a complete attempt failed in a way that may have been applied
                                java.util.concurrent.atomic.AtomicReference<Throwable> maybeApplied =
                                        new java.util.concurrent.atomic.AtomicReference<>();
                                Supplier<Mono<software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse>> complete =
                                        () -> send(OpClass.WRITE, "complete upload", path, ifAbsent,
                                                () -> client.completeMultipartUpload(b -> b.bucket(bucket).key(key)
                                                        .uploadId(uploadId).ifNoneMatch(ifAbsent ? "*" : null)
                                                        .multipartUpload(m -> m.parts(done))))
                                                .doOnError(io.javelin.objectstore.TransientObjectStoreException.class,
                                                        maybeApplied::set);
                                Mono<ObjectMeta> completed = (ifAbsent ? policy.executeCreate("complete upload " + path, complete)
                                        : policy.execute(OpClass.WRITE, "complete upload " + path, complete))
                                        .map(r -> new ObjectMeta(path, total.get(), null, r.eTag(), r.versionId()));
                                return completed.onErrorResume(io.javelin.objectstore.ObjectNotFoundException.class,
                                        e -> maybeApplied.get() == null ? Mono.error(e)
                                                : lostCompleteAck(path, total.get(), ifAbsent, maybeApplied.get(), e));
                            })
                            .onErrorResume(e -> abort(key, uploadId).then(Mono.error(e)))
                            .doOnCancel(() -> abort(key, uploadId).subscribe(v -> { }, err -> { }));
                });
    }

    /**
     * A retried CompleteMultipartUpload answered NoSuchUpload: the upload is gone, most likely because
     * the earlier attempt whose response was lost completed it. An unconditional put succeeded if the
     * object now has our size; a create-if-absent cannot tell our object from a rival's, so it reports
     * an ambiguous "already exists" for the caller to read back (as for a lost single-part create).
     */
    private Mono<ObjectMeta> lostCompleteAck(String path, long size, boolean ifAbsent, Throwable earlier, Throwable noSuchUpload) {
        if (ifAbsent) {
            return Mono.error(new io.javelin.objectstore.ObjectAlreadyExistsException(path, 404, "NoSuchUpload", noSuchUpload).asAmbiguous(earlier));
        }
        return head(path).flatMap(meta -> meta.size() == size ? Mono.just(meta) : Mono.<ObjectMeta>error(noSuchUpload))
                .onErrorMap(io.javelin.objectstore.ObjectNotFoundException.class, e -> noSuchUpload);
    }

    private Mono<CompletedPart> uploadPart(String path, String key, String uploadId, Parts.Part p) {
        long size = p.buffer().size();
        return send(OpClass.WRITE, "upload part", path, false, () -> client.uploadPart(
                b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(p.number()).contentLength(size),
                AsyncRequestBody.fromByteBufferUnsafe(p.buffer().segment().asByteBuffer())))
                .doOnSuccess(r -> counters.bytes(OpClass.WRITE, size))
                .map(r -> CompletedPart.builder().partNumber(p.number()).eTag(r.eTag()).build());
    }

    private Mono<Void> abort(String key, String uploadId) {
        return send(OpClass.WRITE, "abort upload", key, false,
                () -> client.abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId)))
                .onErrorResume(e -> Mono.empty())
                .then();
    }

    @Override
    public Mono<ListPage> listPage(String prefix, String delimiter, String pageToken, int maxKeys) {
        return Mono.defer(() -> {
            String p = ObjectPaths.checkPrefix(prefix);
            String full = rootPrefix.isEmpty() ? p : rootPrefix + "/" + p;
            return send(OpClass.LIST, "list", prefix, false, () -> client.listObjectsV2(b -> b.bucket(bucket)
                    .prefix(full).delimiter(delimiter).continuationToken(pageToken).maxKeys(maxKeys)))
                    .map(r -> {
                        List<ObjectMeta> objects = new ArrayList<>(r.contents().size());
                        for (S3Object o : r.contents()) {
                            objects.add(new ObjectMeta(rel(o.key()), o.size(), o.lastModified(), o.eTag(), null));
                        }
                        List<String> prefixes = new ArrayList<>(r.commonPrefixes().size());
                        for (CommonPrefix cp : r.commonPrefixes()) {
                            prefixes.add(rel(cp.prefix()));
                        }
                        return new ListPage(objects, prefixes,
                                Boolean.TRUE.equals(r.isTruncated()) ? r.nextContinuationToken() : null);
                    });
        });
    }

    @Override
    public Mono<Void> delete(String path) {
        return Mono.defer(() -> {
            String key = key(path);
            return send(OpClass.DELETE, "delete", path, false, () -> client.deleteObject(b -> b.bucket(bucket).key(key)))
                    .then();
        });
    }

    @Override
    public Mono<Void> deleteAll(Collection<String> paths) {
        return Flux.fromIterable(paths).map(this::key).buffer(1000)
                .concatMap(batch -> policy.execute(OpClass.DELETE, "delete " + batch.size() + " objects",
                        () -> send(OpClass.DELETE, "bulk delete", batch.get(0), false, () -> client.deleteObjects(b -> b
                                .bucket(bucket)
                                .delete(Delete.builder().quiet(true).objects(batch.stream()
                                        .map(k -> ObjectIdentifier.builder().key(k).build()).toList()).build())))
                                .flatMap(r -> r.errors().isEmpty() ? Mono.empty()
                                        : Mono.error(ErrorClassifier.map("delete", rel(r.errors().get(0).key()), 500,
                                                r.errors().get(0).code(), null, false)))))
                .then();
    }

    @Override
    public Mono<ObjectMeta> copy(String from, String to) {
        return Mono.defer(() -> {
            String src = key(from);
            String dst = key(to);
            return send(OpClass.WRITE, "copy", from, false, () -> client.copyObject(b -> b.sourceBucket(bucket)
                    .sourceKey(src).destinationBucket(bucket).destinationKey(dst)))
                    .then(head(to));
        });
    }

    @Override
    public void close() {
        // The SDK's close waits for its connection pool to shut down: off the event loops, where a dataset or
        // namespace operation may release its store, it runs on boundedElastic instead.
        Thread t = Thread.currentThread();
        if (reactor.core.scheduler.Schedulers.isInNonBlockingThread() || t instanceof io.netty.util.concurrent.FastThreadLocalThread) {
            reactor.core.scheduler.Schedulers.boundedElastic().schedule(client::close);
        } else {
            client.close();
        }
    }

    @Override
    public String toString() {
        return "S3ObjectStore[" + uri + "]";
    }
}
