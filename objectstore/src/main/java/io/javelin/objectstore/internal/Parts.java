package io.javelin.objectstore.internal;

import io.javelin.objectstore.memory.Buffer;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;

/**
 * Cuts a stream of chunks into upload parts of a fixed size (the last may be shorter). A full part
 * is held back until more data arrives, so every part knows whether it is the last: a stream that
 * fits in one part becomes a single PUT, never a one-part multipart upload.
 */
public final class Parts {

    private Parts() {
    }

    /** One part: 1-based number, off-heap bytes (owned by the consumer), and whether it is the last. */
    public record Part(int number, Buffer buffer, boolean last) {
        public void release() {
            buffer.release();
        }
    }

    /** Chunks are copied as they arrive; a stream with no bytes yields one empty last part. */
    public static Flux<Part> chunk(Flux<ByteBuffer> data, long partSize, String label) {
        if (partSize < 1) {
            throw new IllegalArgumentException("Invalid part size: " + partSize + " (must be >= 1)");
        }
        return Flux.defer(() -> {
            Acc acc = new Acc(partSize, label);
            return data.concatMap(bb -> Flux.fromIterable(acc.accept(bb)), 0)
                    .concatWith(Flux.defer(() -> Flux.fromIterable(acc.finish())))
                    .doOnDiscard(Part.class, Part::release)
                    .doFinally(sig -> {
                        if (sig != SignalType.ON_COMPLETE) {
                            acc.releaseAll();
                        }
                    });
        });
    }

    private static final class Acc {
        final long partSize;
        final String label;
        Buffer current;
        long pos;
        Buffer pendingFull;
        int next = 1;

        Acc(long partSize, String label) {
            this.partSize = partSize;
            this.label = label;
        }

        synchronized List<Part> accept(ByteBuffer bb) {
            List<Part> out = new ArrayList<>(1);
            MemorySegment src = MemorySegment.ofBuffer(bb);
            long off = 0;
            long n = src.byteSize();
            while (off < n) {
                if (pendingFull != null) {
                    out.add(new Part(next++, pendingFull, false));
                    pendingFull = null;
                }
                if (current == null) {
                    current = Buffer.allocate(partSize, label);
                    pos = 0;
                }
                long k = Math.min(n - off, partSize - pos);
                MemorySegment.copy(src, off, current.segment(), pos, k);
                off += k;
                pos += k;
                if (pos == partSize) {
                    pendingFull = current;
                    current = null;
                }
            }
            bb.position(bb.limit());
            return out;
        }

        synchronized List<Part> finish() {
            List<Part> out = new ArrayList<>(2);
            if (current != null) {
                if (pendingFull != null) {
                    out.add(new Part(next++, pendingFull, false));
                    pendingFull = null;
                }
                Buffer tail = current.slice(0, pos);
                current.release();
                current = null;
                out.add(new Part(next++, tail, true));
            } else if (pendingFull != null) {
                out.add(new Part(next++, pendingFull, true));
                pendingFull = null;
            } else if (next == 1) {
                out.add(new Part(next++, Buffer.allocate(0, label), true));
            }
            return out;
        }

        synchronized void releaseAll() {
            if (current != null) {
                current.release();
                current = null;
            }
            if (pendingFull != null) {
                pendingFull.release();
                pendingFull = null;
            }
        }
    }
}
