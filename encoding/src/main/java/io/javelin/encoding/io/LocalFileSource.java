package io.javelin.encoding.io;

import io.javelin.objectstore.memory.OffHeap;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousFileChannel;
import java.nio.channels.CompletionHandler;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A local file read with {@link AsynchronousFileChannel}: callers are never blocked; completions
 * arrive on the channel's pool. Each read lands in a fresh off-heap arena released by the range.
 */
public final class LocalFileSource implements RandomAccessSource {

    private final Path path;
    private final AsynchronousFileChannel channel;

    private LocalFileSource(Path path, AsynchronousFileChannel channel) {
        this.path = path;
        this.channel = channel;
    }

    /** Opens the file (the open itself is a short metadata call). */
    public static LocalFileSource open(Path path) {
        try {
            return new LocalFileSource(path, AsynchronousFileChannel.open(path, StandardOpenOption.READ));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String name() {
        return path.toString();
    }

    @Override
    public Mono<Long> size() {
        return Mono.fromCallable(channel::size);
    }

    @Override
    public Mono<ByteRange> read(long offset, long length) {
        return Mono.create(sink -> {
            if (offset < 0 || length < 0) {
                sink.error(new EOFException("negative range " + offset + "+" + length + " of " + path));
                return;
            }
            Arena arena = OffHeap.newArena("page-io");
            MemorySegment seg;
            try {
                seg = arena.allocate(Math.max(1, length), 64).asSlice(0, length);
            } catch (RuntimeException | OutOfMemoryError e) {
                arena.close();
                sink.error(e);
                return;
            }
            ByteRange range = new ByteRange(offset, seg, arena);
            if (length == 0) {
                sink.success(range);
                return;
            }
            sink.onCancel(() -> { });
            readInto(range, seg.asByteBuffer(), offset, sink);
        });
    }

    private void readInto(ByteRange range, ByteBuffer buf, long position, MonoSink<ByteRange> sink) {
        channel.read(buf, position, null, new CompletionHandler<Integer, Void>() {
            @Override
            public void completed(Integer n, Void a) {
                if (n < 0) {
                    range.close();
                    sink.error(new EOFException("end of " + path + " at " + position));
                } else if (buf.hasRemaining()) {
                    readInto(range, buf, position + n, sink);
                } else {
                    sink.success(range);
                }
            }

            @Override
            public void failed(Throwable t, Void a) {
                range.close();
                sink.error(t);
            }
        });
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
