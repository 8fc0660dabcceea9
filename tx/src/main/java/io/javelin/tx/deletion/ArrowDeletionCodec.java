package io.javelin.tx.deletion;

import com.google.flatbuffers.FlatBufferBuilder;
import io.airlift.compress.v3.zstd.ZstdJavaCompressor;
import io.airlift.compress.v3.zstd.ZstdInputStream;
import io.javelin.tx.CorruptFileException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.flatbuf.Block;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.CompressionType;
import org.apache.arrow.flatbuf.Endianness;
import org.apache.arrow.flatbuf.Field;
import org.apache.arrow.flatbuf.FieldNode;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.flatbuf.Int;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.MetadataVersion;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.flatbuf.Schema;
import org.apache.arrow.flatbuf.Type;
import org.roaringbitmap.RoaringBitmap;

/**
 * The {@code .arrow} deletion file: an Arrow IPC <em>file</em> with one non-null {@code row_id: uint32}
 * column (Lance compares the schema for equality; the spec's "Int32" is wrong), written by Lance with
 * ZSTD body compression.
 *
 * <p>Why not Arrow Java's {@code ArrowFileReader}/{@code Writer}: they need a {@code BufferAllocator}
 * (off-heap memory outside {@code OffHeap}) and a ZSTD codec ({@code arrow-compression} pulls zstd-jni,
 * a second native zstd). The format here is one fixed, tiny schema, so we read and write the IPC
 * flatbuffers ({@code arrow-format}) on the heap and use aircompressor's pure-Java ZSTD, which the
 * root pom already manages. Readers check every offset, so a hostile file fails typed.
 */
public final class ArrowDeletionCodec {

    static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    static final String COLUMN = "row_id";
    private static final int CONTINUATION = 0xFFFFFFFF;

    private ArrowDeletionCodec() {
    }

    /** Decodes the deleted row offsets. */
    public static RoaringBitmap read(String path, byte[] bytes) {
        try {
            return decode(path, bytes);
        } catch (CorruptFileException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new CorruptFileException(path, "Invalid Arrow deletion file: " + e, e);
        }
    }

    private static RoaringBitmap decode(String path, byte[] bytes) {
        int size = bytes.length;
        if (size < 2 * MAGIC.length + 4 + 2 || !startsWithMagic(bytes, 0) || !startsWithMagic(bytes, size - MAGIC.length)) {
            throw new CorruptFileException(path, "Not an Arrow IPC file (ARROW1 magic missing)");
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int footerLen = buf.getInt(size - MAGIC.length - 4);
        int footerStart = size - MAGIC.length - 4 - footerLen;
        if (footerLen <= 0 || footerStart < 8) {
            throw new CorruptFileException(path, "Arrow footer length " + footerLen + " out of range");
        }
        Footer footer = Footer.getRootAsFooter(slice(buf, footerStart, footerLen));
        checkSchema(path, footer.schema());
        RoaringBitmap out = new RoaringBitmap();
        Block block = new Block();
        for (int i = 0; i < footer.recordBatchesLength(); i++) {
            footer.recordBatches(block, i);
            readBatch(path, buf, block.offset(), block.metaDataLength(), block.bodyLength(), footerStart, out);
        }
        return out;
    }

    private static void checkSchema(String path, Schema schema) {
        if (schema == null || schema.fieldsLength() != 1) {
            throw new CorruptFileException(path, "Deletion file schema must have exactly one field");
        }
        Field f = schema.fields(0);
        boolean ok = COLUMN.equals(f.name()) && !f.nullable() && f.typeType() == Type.Int && f.childrenLength() == 0
                && f.dictionary() == null;
        if (ok) {
            Int t = (Int) f.type(new Int());
            ok = t.bitWidth() == 32 && !t.isSigned();
        }
        if (!ok) {
            throw new CorruptFileException(path, "Deletion file schema must be [row_id: uint32 not null], found field "
                    + f.name() + " (type " + Type.name(f.typeType()) + ", nullable " + f.nullable() + ")");
        }
    }

    private static void readBatch(String path, ByteBuffer buf, long offset, int metaLen, long bodyLen, int limit,
                                  RoaringBitmap out) {
        if (offset < 8 || metaLen < 8 || bodyLen < 0 || offset + metaLen + bodyLen > limit) {
            throw new CorruptFileException(path, "Record batch block [" + offset + ", +" + metaLen + ", +" + bodyLen
                    + "] out of range");
        }
        int at = (int) offset;
        int prefix = 4;
        int len = buf.getInt(at);
        if (len == CONTINUATION) {
            prefix = 8;
            len = buf.getInt(at + 4);
        }
        if (len <= 0 || prefix + len > metaLen) {
            throw new CorruptFileException(path, "Record batch message length " + len + " out of range at " + at);
        }
        Message msg = Message.getRootAsMessage(slice(buf, at + prefix, len));
        if (msg.headerType() != MessageHeader.RecordBatch) {
            throw new CorruptFileException(path, "Block at " + at + " is not a record batch");
        }
        RecordBatch rb = (RecordBatch) msg.header(new RecordBatch());
        long rows = rb.length();
        if (rb.nodesLength() != 1 || rb.buffersLength() != 2 || rows < 0 || rows > Integer.MAX_VALUE / 4) {
            throw new CorruptFileException(path, "Record batch at " + at + " does not hold one uint32 column");
        }
        FieldNode node = rb.nodes(0);
        if (node.length() != rows || node.nullCount() != 0) {
            throw new CorruptFileException(path, "row_id column has " + node.nullCount() + " nulls or a bad length");
        }
        int codec = -1;
        BodyCompression compression = rb.compression();
        if (compression != null) {
            codec = compression.codec();
            if (codec != CompressionType.ZSTD || compression.method() != BodyCompressionMethod.BUFFER) {
                throw new CorruptFileException(path, "Unsupported Arrow body compression codec " + codec);
            }
        }
        int bodyStart = (int) (offset + metaLen);
        var data = rb.buffers(1);
        if (data.offset() < 0 || data.length() < 0 || data.offset() + data.length() > bodyLen) {
            throw new CorruptFileException(path, "row_id buffer out of the record batch body");
        }
        byte[] values = buffer(path, buf.array(), bodyStart + (int) data.offset(), (int) data.length(), codec, (int) rows * 4);
        ByteBuffer v = ByteBuffer.wrap(values).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < rows; i++) {
            out.add(v.getInt(i * 4)); // Roaring treats ints as unsigned, like uint32 offsets
        }
    }

    /** One body buffer, decompressed if the batch is compressed (int64 uncompressed length, -1 = stored raw). */
    private static byte[] buffer(String path, byte[] file, int at, int len, int codec, int expected) {
        if (codec < 0 || len == 0) {
            if (len < expected) {
                throw new CorruptFileException(path, "row_id buffer has " + len + " bytes, expected " + expected);
            }
            byte[] out = new byte[expected];
            System.arraycopy(file, at, out, 0, expected);
            return out;
        }
        if (len < 8) {
            throw new CorruptFileException(path, "Compressed buffer shorter than its length prefix");
        }
        long raw = ByteBuffer.wrap(file, at, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
        if (raw == -1) {
            return buffer(path, file, at + 8, len - 8, -1, expected);
        }
        if (raw != expected) {
            throw new CorruptFileException(path, "row_id buffer decompresses to " + raw + " bytes, expected " + expected);
        }
        return inflate(path, file, at + 8, len - 8, expected);
    }

    /**
     * Decompresses a ZSTD frame whose output must be exactly {@code expected} bytes. Memory grows with
     * the output actually produced, never with the declared length: a few hundred hostile bytes
     * declaring 2^31 rows cannot make us reserve gigabytes up front.
     */
    private static byte[] inflate(String path, byte[] file, int at, int len, int expected) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(expected, 1 << 16));
        byte[] chunk = new byte[8192];
        try (InputStream in = new ZstdInputStream(new ByteArrayInputStream(file, at, len))) {
            int n;
            while ((n = in.read(chunk, 0, chunk.length)) > 0) {
                if (out.size() + n > expected) {
                    throw new CorruptFileException(path, "row_id buffer decompresses to more than " + expected + " bytes");
                }
                out.write(chunk, 0, n);
            }
        } catch (IOException e) {
            throw new CorruptFileException(path, "row_id buffer does not decompress: " + e.getMessage(), e);
        }
        if (out.size() != expected) {
            throw new CorruptFileException(path, "row_id buffer decompressed to " + out.size() + " bytes, expected " + expected);
        }
        return out.toByteArray();
    }

    /** Encodes the offsets (ascending) as an Arrow IPC file with one ZSTD-compressed batch, as Lance does. */
    public static byte[] write(RoaringBitmap rows) {
        int n = rows.getCardinality();
        ByteBuffer raw = ByteBuffer.allocate(n * 4).order(ByteOrder.LITTLE_ENDIAN);
        rows.forEach((int r) -> raw.putInt(r));
        ZstdJavaCompressor zstd = new ZstdJavaCompressor();
        byte[] compressed = new byte[zstd.maxCompressedLength(raw.capacity())];
        int clen = zstd.compress(raw.array(), 0, raw.capacity(), compressed, 0, compressed.length);
        // body: validity omitted (length 0, no nulls) | data = i64 uncompressed length + zstd frame
        ByteBuffer body = ByteBuffer.allocate(pad8(8 + clen)).order(ByteOrder.LITTLE_ENDIAN);
        body.putLong(raw.capacity()).put(compressed, 0, clen);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(MAGIC);
        out.writeBytes(new byte[2]);
        writeMessage(out, schemaMessage(), new byte[0]);
        long batchOffset = out.size();
        int batchMeta = writeMessage(out, batchMessage(n, 8 + clen, body.capacity()), body.array());
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(CONTINUATION).putInt(0).array()); // EOS

        FlatBufferBuilder fb = new FlatBufferBuilder(256);
        int schema = schema(fb);
        Footer.startRecordBatchesVector(fb, 1);
        Block.createBlock(fb, batchOffset, batchMeta, body.capacity());
        int batches = fb.endVector();
        Footer.startDictionariesVector(fb, 0);
        int dicts = fb.endVector();
        Footer.startFooter(fb);
        Footer.addVersion(fb, MetadataVersion.V5);
        Footer.addSchema(fb, schema);
        Footer.addDictionaries(fb, dicts);
        Footer.addRecordBatches(fb, batches);
        fb.finish(Footer.endFooter(fb));
        byte[] footer = fb.sizedByteArray();
        out.writeBytes(footer);
        out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(footer.length).array());
        out.writeBytes(MAGIC);
        return out.toByteArray();
    }

    private static int schema(FlatBufferBuilder fb) {
        int name = fb.createString(COLUMN);
        int type = Int.createInt(fb, 32, false);
        int children = Field.createChildrenVector(fb, new int[0]);
        Field.startField(fb);
        Field.addName(fb, name);
        Field.addNullable(fb, false);
        Field.addTypeType(fb, Type.Int);
        Field.addType(fb, type);
        Field.addChildren(fb, children);
        int field = Field.endField(fb);
        int fields = Schema.createFieldsVector(fb, new int[] {field});
        Schema.startSchema(fb);
        Schema.addEndianness(fb, Endianness.Little);
        Schema.addFields(fb, fields);
        return Schema.endSchema(fb);
    }

    private static byte[] schemaMessage() {
        FlatBufferBuilder fb = new FlatBufferBuilder(128);
        int schema = schema(fb);
        Message.startMessage(fb);
        Message.addVersion(fb, MetadataVersion.V5);
        Message.addHeaderType(fb, MessageHeader.Schema);
        Message.addHeader(fb, schema);
        Message.addBodyLength(fb, 0);
        fb.finish(Message.endMessage(fb));
        return fb.sizedByteArray();
    }

    private static byte[] batchMessage(int rows, int dataLen, int bodyLen) {
        FlatBufferBuilder fb = new FlatBufferBuilder(128);
        int compression = BodyCompression.createBodyCompression(fb, CompressionType.ZSTD, BodyCompressionMethod.BUFFER);
        RecordBatch.startNodesVector(fb, 1);
        FieldNode.createFieldNode(fb, rows, 0);
        int nodes = fb.endVector();
        RecordBatch.startBuffersVector(fb, 2);
        org.apache.arrow.flatbuf.Buffer.createBuffer(fb, 0, dataLen); // data (vectors of structs are built backwards)
        org.apache.arrow.flatbuf.Buffer.createBuffer(fb, 0, 0);       // validity
        int buffers = fb.endVector();
        RecordBatch.startRecordBatch(fb);
        RecordBatch.addLength(fb, rows);
        RecordBatch.addNodes(fb, nodes);
        RecordBatch.addBuffers(fb, buffers);
        RecordBatch.addCompression(fb, compression);
        int batch = RecordBatch.endRecordBatch(fb);
        Message.startMessage(fb);
        Message.addVersion(fb, MetadataVersion.V5);
        Message.addHeaderType(fb, MessageHeader.RecordBatch);
        Message.addHeader(fb, batch);
        Message.addBodyLength(fb, bodyLen);
        fb.finish(Message.endMessage(fb));
        return fb.sizedByteArray();
    }

    /** Continuation marker, padded metadata length, metadata, padding, body; returns the block's metadata length. */
    private static int writeMessage(ByteArrayOutputStream out, byte[] meta, byte[] body) {
        int padded = pad8(8 + meta.length) - 8;
        ByteBuffer head = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(CONTINUATION).putInt(padded);
        out.writeBytes(head.array());
        out.writeBytes(meta);
        out.writeBytes(new byte[padded - meta.length]);
        out.writeBytes(body);
        return 8 + padded;
    }

    private static int pad8(int n) {
        return (n + 7) & ~7;
    }

    private static ByteBuffer slice(ByteBuffer buf, int at, int len) {
        return buf.duplicate().position(at).limit(at + len).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    private static boolean startsWithMagic(byte[] b, int at) {
        for (int i = 0; i < MAGIC.length; i++) {
            if (b[at + i] != MAGIC[i]) {
                return false;
            }
        }
        return true;
    }
}
