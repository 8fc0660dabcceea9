package io.javelin.encoding.v1;

import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.pb.file.Dictionary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import reactor.core.publisher.Mono;

/**
 * Legacy Dictionary encoding: the page holds the keys, plain, in the dictionary's index type; the values
 * are stored once, VarBinary-encoded ({@code length + 1} i64 positions at {@code Field.dictionary.offset}),
 * in the manifest that describes the field: the dataset's manifest file, and the same values in the data
 * file's embedded manifest, which is where they are read from here. The field reads as its values.
 */
final class DictionaryDecoder {

    private DictionaryDecoder() {
    }

    /** The dictionary's values, a VarBinary run at {@code d} of the data file. */
    static Mono<Piece.Binary> values(V1Pages io, Field f, Dictionary d) {
        if (!VarBinaryDecoder.handles(f.getType())) {
            return Mono.error(new UnsupportedEncodingException(io.resource(), d.getOffset(), "Legacy dictionary of "
                    + f.getType() + " values (field " + f.getName() + "): only string and binary values are stored"));
        }
        Field plain = new Field(f.getName(), new org.apache.arrow.vector.types.pojo.FieldType(false, f.getType(), null), null);
        return VarBinaryDecoder.read(io, plain, d.getOffset(), d.getLength(), 0, d.getLength()).cast(Piece.Binary.class);
    }

    /** Rows {@code [from, to)}: keys from the page, gathered into a piece of their values. */
    static Mono<Piece> read(V1Pages io, Field f, Piece.Binary dictionary, long position, long length, long from, long to) {
        ArrowType.Int key = f.getDictionary().getIndexType();
        int w = key.getBitWidth() / 8;
        Field keys = new Field(f.getName(), org.apache.arrow.vector.types.pojo.FieldType.notNullable(key), null);
        return PlainDecoder.read(io, keys, position, length, from, to).map(p -> {
            byte[] k = ((Piece.Fixed) p).data();
            ByteBuffer b = ByteBuffer.wrap(k).order(ByteOrder.LITTLE_ENDIAN);
            int n = k.length / w;
            long[] offsets = new long[n + 1];
            long[] starts = new long[n];
            long[] d = dictionary.offsets();
            for (int i = 0; i < n; i++) {
                long index = switch (w) {
                    case 1 -> key.getIsSigned() ? b.get(i) : Byte.toUnsignedLong(b.get(i));
                    case 2 -> key.getIsSigned() ? b.getShort(i * 2) : Short.toUnsignedLong(b.getShort(i * 2));
                    case 4 -> key.getIsSigned() ? b.getInt(i * 4) : Integer.toUnsignedLong(b.getInt(i * 4));
                    default -> b.getLong(i * 8);
                };
                if (index < 0 || index >= dictionary.rows()) {
                    throw io.corrupt(position, "Legacy dictionary key " + index + " of field " + f.getName() + " outside its "
                            + dictionary.rows() + " values");
                }
                starts[i] = d[(int) index];
                offsets[i + 1] = offsets[i] + d[(int) index + 1] - d[(int) index];
            }
            byte[] data = new byte[Math.toIntExact(offsets[n])];
            for (int i = 0; i < n; i++) {
                System.arraycopy(dictionary.data(), (int) starts[i], data, (int) offsets[i], (int) (offsets[i + 1] - offsets[i]));
            }
            // keys have no validity: every row is a value (an empty one stays empty)
            return new Piece.Binary(offsets, data, false);
        });
    }
}
