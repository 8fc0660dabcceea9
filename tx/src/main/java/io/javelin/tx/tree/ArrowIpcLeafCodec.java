package io.javelin.tx.tree;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;

/**
 * In-memory stand-in for the Lance-file leaf codec: an Arrow IPC file of the exact leaf schema
 * (one batch, dictionaries included). Not a Lance file; replaced once the encoding module's
 * writer and reader land.
 */
public final class ArrowIpcLeafCodec implements LeafCodec {

    @Override
    public byte[] encode(VectorSchemaRoot leaf, DictionaryProvider dictionaries) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (ArrowFileWriter writer = new ArrowFileWriter(leaf, dictionaries, Channels.newChannel(out))) {
            writer.start();
            writer.writeBatch();
            writer.end();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    @Override
    public Decoded decode(byte[] bytes, BufferAllocator allocator) {
        ArrowFileReader reader = new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), allocator);
        try {
            if (!reader.loadNextBatch()) {
                throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf has no record batch");
            }
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            return new Decoded() {
                @Override
                public VectorSchemaRoot root() {
                    return root;
                }

                @Override
                public DictionaryProvider dictionaries() {
                    return reader;
                }

                @Override
                public void close() {
                    try {
                        reader.close();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
            };
        } catch (IOException | RuntimeException e) {
            try {
                reader.close();
            } catch (IOException | RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            if (e instanceof CorruptSnapshotException c) {
                throw c;
            }
            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf does not decode: " + e, e);
        }
    }
}
