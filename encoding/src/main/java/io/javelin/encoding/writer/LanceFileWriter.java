package io.javelin.encoding.writer;

import io.javelin.objectstore.ObjectStore;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Streams Arrow batches into one Lance file (2.0, 2.1 or 2.2) through an {@link ObjectStore}.
 *
 * <p>Each batch is encoded when it arrives (the caller may reuse or release it once {@code onNext}
 * returns); a column's buffered rows become a page when they reach the page size, so memory stays
 * bounded by about one page per column. The bytes go to {@link ObjectStore#put(String, Flux)},
 * which uploads large files in parts and publishes nothing if the stream fails or is cancelled
 * (local files: temporary name + rename; object stores: aborted multipart upload).
 */
public final class LanceFileWriter {
    private LanceFileWriter() {
    }

    /** The outcome of a write. */
    public record Result(String path, long rows, long bytes, LanceFileVersion version) {
    }

    /** Writes {@code batches} (all matching {@code schema}) to {@code path}. */
    public static Mono<Result> write(Flux<VectorSchemaRoot> batches, Schema schema, ObjectStore store, String path,
                                     WriteOptions options) {
        return Mono.defer(() -> {
            AtomicReference<FileEncoder> holder = new AtomicReference<>();
            Flux<ByteBuffer> bytes = encode(batches, schema, options, holder);
            return store.put(path, bytes).map(meta -> {
                FileEncoder enc = holder.get();
                return new Result(path, enc.rows(), enc.position(), options.version());
            });
        });
    }

    /** As {@link #write}, adding user global buffers 1, 2, ... (index files: IVF model, codebook) after the schema. */
    public static Mono<Result> write(Flux<VectorSchemaRoot> batches, Schema schema, ObjectStore store, String path,
                                     WriteOptions options, java.util.List<byte[]> globalBuffers) {
        return Mono.defer(() -> {
            AtomicReference<FileEncoder> holder = new AtomicReference<>();
            Flux<ByteBuffer> bytes = Flux.defer(() -> {
                FileEncoder enc = new FileEncoder(schema, options);
                globalBuffers.forEach(enc::addGlobalBuffer);
                holder.set(enc);
                return batches.map(enc::write)
                        .concatMapIterable(pages -> pages, 1)
                        .concatWith(Flux.defer(() -> Flux.fromIterable(enc.finish())));
            });
            return store.put(path, bytes).map(meta -> {
                FileEncoder enc = holder.get();
                return new Result(path, enc.rows(), enc.position(), options.version());
            });
        });
    }

    /** The file's bytes in order, without any I/O (for stores, tests and in-memory use). */
    public static Flux<ByteBuffer> encode(Flux<VectorSchemaRoot> batches, Schema schema, WriteOptions options) {
        return encode(batches, schema, options, new AtomicReference<>());
    }

    private static Flux<ByteBuffer> encode(Flux<VectorSchemaRoot> batches, Schema schema, WriteOptions options,
                                           AtomicReference<FileEncoder> holder) {
        return Flux.defer(() -> {
            FileEncoder enc = new FileEncoder(schema, options);
            holder.set(enc);
            // map() encodes inside onNext, so the caller may close or reuse the batch right after.
            return batches.map(enc::write)
                    .concatMapIterable(pages -> pages, 1)
                    .concatWith(Flux.defer(() -> Flux.fromIterable(enc.finish())));
        });
    }
}
