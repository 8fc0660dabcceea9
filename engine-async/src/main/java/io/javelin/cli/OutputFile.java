package io.javelin.cli;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * A CLI output file that appears only complete: written under a temporary name next to the target and
 * renamed over it on {@link #publish}; closing without publishing deletes it, so a failed export leaves
 * no file (and an existing one untouched), as the data writers do.
 */
final class OutputFile implements AutoCloseable {

    private final Path target;
    private final Path temp;
    private final FileChannel channel;
    private boolean published;

    private OutputFile(Path target, Path temp, FileChannel channel) {
        this.target = target;
        this.temp = temp;
        this.channel = channel;
    }

    static OutputFile create(Path target) throws IOException {
        Path abs = target.toAbsolutePath();
        Path dir = abs.getParent();
        Path temp = dir.resolve("." + abs.getFileName() + "." + Long.toHexString(System.nanoTime()) + ".tmp");
        FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        return new OutputFile(abs, temp, ch);
    }

    /** The file to write; closing it (Arrow's writers do) leaves it open for {@link #publish}'s fsync. */
    java.nio.channels.WritableByteChannel channel() {
        return new java.nio.channels.WritableByteChannel() {
            @Override
            public int write(java.nio.ByteBuffer src) throws IOException {
                return channel.write(src);
            }

            @Override
            public boolean isOpen() {
                return channel.isOpen();
            }

            @Override
            public void close() {
                // published or deleted by the owner
            }
        };
    }

    /** Flushes to disk and renames the temporary file to the target (replacing it). */
    void publish() throws IOException {
        channel.force(true);
        channel.close();
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
        }
        published = true;
    }

    @Override
    public void close() throws IOException {
        if (!published) {
            try {
                channel.close();
            } finally {
                Files.deleteIfExists(temp);
            }
        }
    }
}
