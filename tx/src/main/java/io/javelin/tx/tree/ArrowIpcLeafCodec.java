package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import org.apache.arrow.flatbuf.Block;
import org.apache.arrow.flatbuf.DictionaryBatch;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flatbuf.Type;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.apache.arrow.vector.util.ValueVectorUtility;

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
        checkLayout(bytes);
        ArrowFileReader reader = new ArrowFileReader(new ByteArrayReadableSeekableByteChannel(bytes), allocator);
        try {
            if (!reader.loadNextBatch()) {
                throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf has no record batch");
            }
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            // Arrow Java trusts offsets and lengths on access: check them once, here, so a hostile
            // leaf fails typed instead of reading out of bounds later.
            for (FieldVector v : root.getFieldVectors()) {
                ValueVectorUtility.validateFull(v);
            }
            for (long id : reader.getDictionaryIds()) {
                ValueVectorUtility.validateFull(reader.lookup(id).getVector());
            }
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

    /**
     * Checks the IPC framing before Arrow Java sees it: every block inside the file, every message
     * inside its block, every buffer inside its body. Arrow Java allocates a block's body first and
     * leaks it when a buffer then falls outside, so out-of-range layouts must never reach it.
     */
    static void checkLayout(byte[] bytes) {
        try {
            int size = bytes.length;
            ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            check(size >= 6 + 2 + 4 + 6, Rule.R08_OBJECT_ENCODING, "leaf of %d bytes is not an Arrow IPC file", size);
            int footerLen = buf.getInt(size - 10);
            int footerStart = size - 10 - footerLen;
            check(footerLen > 0 && footerStart >= 8, Rule.R08_OBJECT_ENCODING, "leaf footer length %d out of range", footerLen);
            Footer footer = Footer.getRootAsFooter(buf.duplicate().position(footerStart).limit(footerStart + footerLen)
                    .slice().order(ByteOrder.LITTLE_ENDIAN));
            check(footer.schema() != null, Rule.R08_OBJECT_ENCODING, "leaf footer has no schema");
            // what each batch must carry: Arrow Java leaks the body when a batch runs out of nodes or buffers
            java.util.Map<Long, int[]> dictionaries = new java.util.HashMap<>();
            int[] batch = new int[2];
            for (int f = 0; f < footer.schema().fieldsLength(); f++) {
                shape(footer.schema().fields(f), batch, dictionaries, 0);
            }
            Shape shape = new Shape(batch, dictionaries);
            Block block = new Block();
            for (int i = 0; i < footer.recordBatchesLength() + footer.dictionariesLength(); i++) {
                if (i < footer.recordBatchesLength()) {
                    footer.recordBatches(block, i);
                } else {
                    footer.dictionaries(block, i - footer.recordBatchesLength());
                }
                checkBlock(buf, block.offset(), block.metaDataLength(), block.bodyLength(), footerStart, shape);
            }
        } catch (CorruptSnapshotException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf IPC framing does not decode: " + e, e);
        }
    }

    /** Field nodes and buffers per record batch, and per dictionary batch by id. */
    private record Shape(int[] batch, java.util.Map<Long, int[]> dictionaries) {
    }

    /** Adds a field's nodes and buffers to {@code acc}; a dictionary-encoded field adds its index and registers its values. */
    private static void shape(org.apache.arrow.flatbuf.Field f, int[] acc, java.util.Map<Long, int[]> dictionaries, int depth) {
        check(depth < 64, Rule.R08_OBJECT_ENCODING, "leaf schema nested deeper than 64");
        if (f.dictionary() != null) {
            acc[0] += 1;
            acc[1] += 2; // validity + integer indices
            int[] values = new int[2];
            values[0] += 1;
            values[1] += buffers(f.typeType());
            for (int c = 0; c < f.childrenLength(); c++) {
                shape(f.children(c), values, dictionaries, depth + 1);
            }
            dictionaries.put(f.dictionary().id(), values);
            return;
        }
        acc[0] += 1;
        acc[1] += buffers(f.typeType());
        for (int c = 0; c < f.childrenLength(); c++) {
            shape(f.children(c), acc, dictionaries, depth + 1);
        }
    }

    private static int buffers(byte type) {
        return switch (type) {
            case Type.Null -> 0;
            case Type.Struct_, Type.FixedSizeList -> 1;
            case Type.Int, Type.FloatingPoint, Type.Bool, Type.Decimal, Type.Date, Type.Time, Type.Timestamp, Type.Interval,
                 Type.FixedSizeBinary, Type.Duration, Type.List, Type.LargeList, Type.Map -> 2;
            case Type.Binary, Type.Utf8, Type.LargeBinary, Type.LargeUtf8 -> 3;
            default -> throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf schema uses Arrow type " + Type.name(type));
        };
    }

    private static void checkBlock(ByteBuffer buf, long offset, int metaLen, long bodyLen, int limit, Shape shape) {
        check(offset >= 8 && metaLen >= 8 && bodyLen >= 0 && offset + metaLen + bodyLen <= limit,
                Rule.R08_OBJECT_ENCODING, "leaf block [%d, +%d, +%d] outside the file", offset, metaLen, bodyLen);
        int at = (int) offset;
        int prefix = 4;
        int len = buf.getInt(at);
        if (len == -1) {
            prefix = 8;
            len = buf.getInt(at + 4);
        }
        check(len > 0 && prefix + len <= metaLen, Rule.R08_OBJECT_ENCODING, "leaf message length %d out of its block", len);
        Message msg = Message.getRootAsMessage(buf.duplicate().position(at + prefix).limit(at + prefix + len).slice()
                .order(ByteOrder.LITTLE_ENDIAN));
        check(msg.bodyLength() == bodyLen, Rule.R08_OBJECT_ENCODING, "leaf message body %d, block says %d",
                msg.bodyLength(), bodyLen);
        int[] expected;
        RecordBatch rb;
        switch (msg.headerType()) {
            case MessageHeader.RecordBatch -> {
                rb = (RecordBatch) msg.header(new RecordBatch());
                expected = shape.batch();
            }
            case MessageHeader.DictionaryBatch -> {
                DictionaryBatch d = (DictionaryBatch) msg.header(new DictionaryBatch());
                expected = shape.dictionaries().get(d.id());
                check(expected != null, Rule.R08_OBJECT_ENCODING, "leaf dictionary %d not in the schema", d.id());
                rb = d.data();
            }
            default -> {
                rb = null;
                expected = null;
            }
        }
        check(rb != null && rb.length() >= 0 && rb.length() <= Integer.MAX_VALUE, Rule.R08_OBJECT_ENCODING,
                "leaf block holds no record batch of a valid length");
        check(rb.nodesLength() == expected[0] && rb.buffersLength() == expected[1], Rule.R08_OBJECT_ENCODING,
                "leaf batch has %d field nodes and %d buffers, its schema needs %d and %d", rb.nodesLength(),
                rb.buffersLength(), expected[0], expected[1]);
        // every value of the leaf schema takes at least one bit of the body: bounds what Arrow will size from the counts
        long maxValues = 8 * bodyLen + 64;
        check(rb.length() <= maxValues, Rule.R08_OBJECT_ENCODING, "leaf batch of %d rows in a %d-byte body", rb.length(), bodyLen);
        for (int b = 0; b < rb.buffersLength(); b++) {
            org.apache.arrow.flatbuf.Buffer x = rb.buffers(b);
            check(x.offset() >= 0 && x.length() >= 0 && x.offset() + x.length() <= bodyLen, Rule.R08_OBJECT_ENCODING,
                    "leaf buffer [%d, +%d] outside its body of %d bytes", x.offset(), x.length(), bodyLen);
        }
        for (int n = 0; n < rb.nodesLength(); n++) {
            long nodeLen = rb.nodes(n).length();
            long nulls = rb.nodes(n).nullCount();
            check(nodeLen >= 0 && nodeLen <= maxValues && nulls >= 0 && nulls <= nodeLen, Rule.R08_OBJECT_ENCODING,
                    "leaf field node with length %d and %d nulls", nodeLen, nulls);
        }
    }
}
