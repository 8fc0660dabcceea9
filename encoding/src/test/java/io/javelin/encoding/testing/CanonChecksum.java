package io.javelin.encoding.testing;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.memory.util.ArrowBufPointer;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.ElementAddressableVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * The golden corpus' "canon-v1/sha256" checksum: per top-level column, every row's canonical bytes
 * (null = 0x00; else 0x01 + payload, lists as u32 count + elements, strings as u32 length + bytes,
 * structs as child values in order) into SHA-256. Feed batches in scan order with {@link #update}.
 */
public final class CanonChecksum {

    /** Result for one column. */
    public record Column(long rows, long nulls, String sha256) {
    }

    private final Map<String, MessageDigest> digests = new LinkedHashMap<>();
    private final Map<String, long[]> counts = new LinkedHashMap<>();

    public void update(VectorSchemaRoot root) {
        for (FieldVector v : root.getFieldVectors()) {
            update(v.getName(), v);
        }
    }

    public void update(String column, ValueVector v) {
        MessageDigest md = digests.computeIfAbsent(column, k -> sha256());
        long[] c = counts.computeIfAbsent(column, k -> new long[2]);
        for (int i = 0; i < v.getValueCount(); i++) {
            c[0]++;
            if (v.isNull(i)) {
                c[1]++;
            }
            value(md, v, i);
        }
    }

    public Map<String, Column> columns() {
        Map<String, Column> out = new LinkedHashMap<>();
        for (var e : digests.entrySet()) {
            long[] c = counts.get(e.getKey());
            out.put(e.getKey(), new Column(c[0], c[1], hex(clone(e.getValue()).digest())));
        }
        return out;
    }

    /** SHA-256 over {@code name 0x00 hex '\n'} per column in order. */
    public String tableSha256() {
        MessageDigest t = sha256();
        for (var e : columns().entrySet()) {
            t.update(e.getKey().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            t.update((byte) 0);
            t.update(e.getValue().sha256().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            t.update((byte) '\n');
        }
        return hex(t.digest());
    }

    private static void value(MessageDigest md, ValueVector v, int i) {
        if (v.isNull(i) || v instanceof NullVector) {
            md.update((byte) 0);
            return;
        }
        md.update((byte) 1);
        switch (v) {
            case BitVector b -> md.update((byte) b.get(i));
            case StructVector s -> {
                for (FieldVector c : s.getChildrenFromFields()) {
                    value(md, c, i);
                }
            }
            case FixedSizeListVector l -> {
                int n = l.getListSize();
                for (int k = 0; k < n; k++) {
                    value(md, l.getDataVector(), i * n + k);
                }
            }
            case LargeListVector l -> {
                long s = l.getOffsetBuffer().getLong((long) i * 8);
                long e = l.getOffsetBuffer().getLong((long) (i + 1) * 8);
                u32(md, e - s);
                for (long k = s; k < e; k++) {
                    value(md, l.getDataVector(), (int) k);
                }
            }
            case ListVector l -> {
                int s = l.getOffsetBuffer().getInt((long) i * 4);
                int e = l.getOffsetBuffer().getInt((long) (i + 1) * 4);
                u32(md, e - s);
                for (int k = s; k < e; k++) {
                    value(md, l.getDataVector(), k);
                }
            }
            case BaseFixedWidthVector f -> {
                int w = f.getTypeWidth();
                byte[] b = new byte[w];
                f.getDataBuffer().getBytes((long) i * w, b);
                md.update(b);
            }
            case ElementAddressableVector ea -> {
                ArrowBufPointer p = ea.getDataPointer(i);
                byte[] b = new byte[(int) p.getLength()];
                if (p.getBuf() != null) {
                    p.getBuf().getBytes(p.getOffset(), b);
                }
                u32(md, b.length);
                md.update(b);
            }
            default -> throw new IllegalArgumentException("canon-v1: unsupported vector " + v.getClass().getSimpleName());
        }
    }

    private static void u32(MessageDigest md, long n) {
        md.update(new byte[] {(byte) n, (byte) (n >>> 8), (byte) (n >>> 16), (byte) (n >>> 24)});
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static MessageDigest clone(MessageDigest md) {
        try {
            return (MessageDigest) md.clone();
        } catch (CloneNotSupportedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
