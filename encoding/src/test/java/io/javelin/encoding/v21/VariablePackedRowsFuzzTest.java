package io.javelin.encoding.v21;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.arrow.Values;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/**
 * Fuzz of the blob v2 descriptor rows ({@code kind u8, position u64, size u64, blob_id u32, blob_uri utf8}
 * packed per row): valid rows decode to their fields, and any mutation or truncation either still decodes
 * or fails with a {@link CorruptFileException}, never another exception or a hang.
 */
class VariablePackedRowsFuzzTest {

    static final Field DESCRIPTOR = new Field("blob", FieldType.nullable(ArrowType.Struct.INSTANCE), List.of(
            new Field("kind", FieldType.notNullable(new ArrowType.Int(8, false)), null),
            new Field("position", FieldType.notNullable(new ArrowType.Int(64, false)), null),
            new Field("size", FieldType.notNullable(new ArrowType.Int(64, false)), null),
            new Field("blob_id", FieldType.notNullable(new ArrowType.Int(32, false)), null),
            new Field("blob_uri", FieldType.notNullable(ArrowType.Utf8.INSTANCE), null)));

    static byte[] row(int kind, long pos, long size, int id, byte[] uri) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(25 + uri.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.put((byte) kind).putLong(pos).putLong(size).putInt(id).putInt(uri.length).put(uri);
        return b.array();
    }

    @Test
    void validRowsDecodeAndMutationsAreTypedErrors() {
        Random rnd = new Random(25);
        int decoded = 0;
        int corrupt = 0;
        for (int iter = 0; iter < 3000; iter++) {
            int n = 1 + rnd.nextInt(8);
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            long[] off = new long[n + 1];
            long[] sizes = new long[n];
            for (int i = 0; i < n; i++) {
                byte[] uri = new byte[rnd.nextInt(3) == 0 ? rnd.nextInt(40) : 0];
                rnd.nextBytes(uri);
                sizes[i] = rnd.nextLong() >>> 1;
                all.writeBytes(row(rnd.nextInt(4), rnd.nextLong() >>> 1, sizes[i], rnd.nextInt(), uri));
                off[i + 1] = all.size();
            }
            byte[] data = all.toByteArray();
            if (iter % 2 == 0) {
                Node node = VariablePackedRows.unpack(DESCRIPTOR, n, null, new Values.Var(off, data));
                Values.Fixed sz = (Values.Fixed) node.children().get(2).values();
                java.nio.ByteBuffer le = java.nio.ByteBuffer.wrap(sz.data()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    assertThat(le.getLong(8 * i)).isEqualTo(sizes[i]);
                }
                decoded++;
                continue;
            }
            // mutate bytes, or cut a row short
            for (int m = 0; m < 1 + rnd.nextInt(4); m++) {
                data[rnd.nextInt(data.length)] = (byte) rnd.nextInt();
            }
            if (rnd.nextBoolean()) {
                int r = rnd.nextInt(n);
                if (off[r + 1] > off[r]) {
                    off[r + 1] -= 1 + rnd.nextInt((int) (off[r + 1] - off[r]));
                    for (int k = r + 2; k <= n; k++) {
                        off[k] = Math.max(off[k], off[r + 1]);
                    }
                }
            }
            try {
                VariablePackedRows.unpack(DESCRIPTOR, n, null, new Values.Var(off, data));
                decoded++;
            } catch (CorruptFileException e) {
                corrupt++;
            }
        }
        assertThat(decoded).isGreaterThan(1500);
        assertThat(corrupt).isPositive();
    }
}
