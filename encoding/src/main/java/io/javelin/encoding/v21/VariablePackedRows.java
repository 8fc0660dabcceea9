package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.VariablePackedStruct;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Lance 2.2 {@code VariablePackedStruct} values: each struct row is its children packed one after the
 * other, a fixed-width child as its bytes and a variable-width child as a little-endian length prefix
 * (4 bytes for 32-bit-offset types, 8 for large ones) followed by its bytes. Full-zip pages keep each row
 * as one opaque variable-width value; {@link #unpack} splits the rows into child columns.
 */
final class VariablePackedRows {

    private VariablePackedRows() {
    }

    /** Accepts only what {@link #unpack} decodes: plain flat or variable children, no per-child compression. */
    static void check(String resource, long at, VariablePackedStruct vps) {
        for (VariablePackedStruct.FieldEncoding fe : vps.getFieldsList()) {
            CompressiveEncoding v = fe.getValue();
            boolean ok = switch (fe.getLayoutCase()) {
                case BITS_PER_VALUE -> v.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT
                        && fe.getBitsPerValue() % 8 == 0 && fe.getBitsPerValue() > 0;
                case BITS_PER_LENGTH -> v.getCompressionCase() == CompressiveEncoding.CompressionCase.VARIABLE
                        && (fe.getBitsPerLength() == 32 || fe.getBitsPerLength() == 64);
                default -> false;
            };
            if (!ok) {
                throw new UnsupportedEncodingException(resource, at, "Variable packed struct child " + v.getCompressionCase()
                        + " with layout " + fe.getLayoutCase());
            }
        }
    }

    /** The struct node of {@code length} rows (empty rows are the null ones {@code validity} marks). */
    static Node unpack(Field arrow, int length, byte[] validity, Values.Var rows) {
        if (rows.count() != length) {
            throw new CorruptFileException("variable packed struct", -1, rows.count() + " rows for " + length + " slots");
        }
        List<Field> kids = arrow.getChildren();
        int n = kids.size();
        LeafKind[] kinds = new LeafKind[n];
        ByteArrayOutputStream[] fixed = new ByteArrayOutputStream[n];
        long[][] offsets = new long[n][];
        ByteArrayOutputStream[] var = new ByteArrayOutputStream[n];
        for (int c = 0; c < n; c++) {
            kinds[c] = LeafKind.of(kids.get(c));
            if (kinds[c].variable()) {
                offsets[c] = new long[length + 1];
                var[c] = new ByteArrayOutputStream();
            } else {
                fixed[c] = new ByteArrayOutputStream();
            }
        }
        byte[] d = rows.data();
        for (int r = 0; r < length; r++) {
            long at = rows.offsets()[r];
            long end = rows.offsets()[r + 1];
            boolean empty = at == end;
            for (int c = 0; c < n; c++) {
                if (kinds[c].variable()) {
                    long len = 0;
                    if (!empty) {
                        int w = kinds[c].offsetBits() / 8;
                        need(at, w, end);
                        len = le(d, (int) at, w);
                        at += w;
                        if (len < 0 || len > end - at) {
                            throw new CorruptFileException("variable packed struct", at, "Child length " + len + " past row " + r);
                        }
                        var[c].write(d, (int) at, (int) len);
                        at += len;
                    }
                    offsets[c][r + 1] = offsets[c][r] + len;
                } else {
                    int w = kinds[c].bitsPerValue() / 8;
                    if (empty) {
                        fixed[c].write(new byte[w], 0, w);
                    } else {
                        need(at, w, end);
                        fixed[c].write(d, (int) at, w);
                        at += w;
                    }
                }
            }
            if (!empty && at != end) {
                throw new CorruptFileException("variable packed struct", at, "Row " + r + " has " + (end - at) + " trailing bytes");
            }
        }
        List<Node> children = new ArrayList<>(n);
        for (int c = 0; c < n; c++) {
            Values v = kinds[c].variable() ? new Values.Var(offsets[c], var[c].toByteArray())
                    : new Values.Fixed(fixed[c].toByteArray(), kinds[c].bitsPerValue(), length);
            children.add(Node.leaf(length, null, v));
        }
        return new Node(length, validity, null, null, children);
    }

    private static void need(long at, int w, long end) {
        if (at + w > end) {
            throw new CorruptFileException("variable packed struct", at, "Row ends inside a child of " + w + " bytes");
        }
    }

    private static long le(byte[] d, int at, int w) {
        long v = 0;
        for (int i = w - 1; i >= 0; i--) {
            v = (v << 8) | (d[at + i] & 0xFF);
        }
        return v;
    }
}
