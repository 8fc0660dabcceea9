package io.javelin.tx.manifest;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.javelin.tx.CorruptManifestException;
import io.javelin.tx.TxException;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The manifest file framing (Lance {@code write_manifest} / {@code read_manifest}):
 *
 * <pre>
 * [u32 LE len | IndexSection]?  [u32 LE len | Transaction]?  u32 LE len | Manifest
 * footer: i64 LE manifest_pos | u16 LE major | u16 LE minor | "LANC"
 * </pre>
 *
 * The manifest must end exactly at {@code size - 16}: Lance computes its length from the footer position,
 * so anything else is corruption, not slack. Every check names the path and the offending offset.
 */
public final class ManifestCodec {

    public static final int FOOTER_SIZE = 16;
    static final byte[] MAGIC = {'L', 'A', 'N', 'C'};
    /** Footer version Lance 7.0.0 writes (readers ignore it). */
    public static final short FOOTER_MAJOR = 0;
    public static final short FOOTER_MINOR = 2;

    private ManifestCodec() {
    }

    /** Decodes and validates (framing, reader flags, table invariants). */
    public static ManifestFile decode(String path, byte[] bytes) {
        long size = bytes.length;
        if (size < FOOTER_SIZE) {
            throw new CorruptManifestException(path, 0, "Manifest file is smaller than 16 bytes: " + size);
        }
        ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int magicAt = bytes.length - 4;
        for (int i = 0; i < 4; i++) {
            if (bytes[magicAt + i] != MAGIC[i]) {
                throw new CorruptManifestException(path, magicAt, "Manifest magic number does not match (expected LANC)");
            }
        }
        long footerAt = size - FOOTER_SIZE;
        long pos = buf.getLong((int) footerAt);
        if (pos < 0 || pos > footerAt - 4) {
            throw new CorruptManifestException(path, footerAt,
                    "Manifest position " + pos + " out of range [0, " + (footerAt - 4) + "]");
        }
        long len = Integer.toUnsignedLong(buf.getInt((int) pos));
        if (pos + 4 + len != footerAt) {
            throw new CorruptManifestException(path, pos, "Manifest length does not match: length prefix " + len
                    + " but the manifest must end at " + footerAt + " (file size " + size + ")");
        }
        Manifest manifest = parse(path, pos + 4, () -> Manifest.parseFrom(ByteBuffer.wrap(bytes, (int) pos + 4, (int) len)));
        FeatureFlags.checkReadable(manifest, path);
        IndexSection index = null;
        if (manifest.hasIndexSection()) {
            long at = manifest.getIndexSection();
            ByteBuffer slice = section(path, buf, at, pos, "index section");
            index = parse(path, at, () -> IndexSection.parseFrom(slice));
        }
        Transaction txn = null;
        if (manifest.hasTransactionSection()) {
            long at = manifest.getTransactionSection();
            ByteBuffer slice = section(path, buf, at, pos, "transaction section");
            txn = parse(path, at, () -> Transaction.parseFrom(slice));
        }
        ManifestValidator.validate(manifest, path, true);
        return new ManifestFile(manifest, index, txn, size);
    }

    /**
     * Renders {@code [index][transaction][manifest][footer]}, setting {@code index_section} and
     * {@code transaction_section} to the offsets actually used (present iff the section is written).
     */
    public static byte[] encode(Manifest manifest, IndexSection index, Transaction txn) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
        Manifest.Builder m = manifest.toBuilder().clearIndexSection().clearTransactionSection();
        if (index != null && index.getIndicesCount() > 0) {
            m.setIndexSection(out.size());
            writeMessage(out, index);
        }
        if (txn != null) {
            m.setTransactionSection(out.size());
            writeMessage(out, txn);
        }
        long pos = out.size();
        writeMessage(out, m.build());
        ByteBuffer footer = ByteBuffer.allocate(FOOTER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        footer.putLong(pos).putShort(FOOTER_MAJOR).putShort(FOOTER_MINOR).put(MAGIC);
        out.writeBytes(footer.array());
        return out.toByteArray();
    }

    private static void writeMessage(ByteArrayOutputStream out, MessageLite msg) {
        byte[] body = msg.toByteArray();
        ByteBuffer len = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(body.length);
        out.writeBytes(len.array());
        out.writeBytes(body);
    }

    /** A {@code u32 len | message} block at {@code at} that must end at or before the manifest block. */
    private static ByteBuffer section(String path, ByteBuffer buf, long at, long manifestPos, String what) {
        if (at < 0 || at > manifestPos - 4) {
            throw new CorruptManifestException(path, at, what + " offset out of range [0, " + (manifestPos - 4) + "]");
        }
        long len = Integer.toUnsignedLong(buf.getInt((int) at));
        if (at + 4 + len > manifestPos) {
            throw new CorruptManifestException(path, at, what + " of length " + len + " overlaps the manifest at " + manifestPos);
        }
        return buf.duplicate().position((int) at + 4).limit((int) (at + 4 + len)).slice();
    }

    private interface Parser<T> {
        T parse() throws InvalidProtocolBufferException;
    }

    private static <T> T parse(String path, long at, Parser<T> parser) {
        try {
            return parser.parse();
        } catch (InvalidProtocolBufferException | RuntimeException e) {
            if (e instanceof TxException tx) {
                throw tx;
            }
            throw new CorruptManifestException(path, at, "Invalid protobuf: " + e.getMessage(), e);
        }
    }
}
