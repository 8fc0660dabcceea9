package io.javelin.encoding.v1;

import io.javelin.encoding.UnsupportedEncodingException;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import reactor.core.publisher.Mono;

/**
 * Legacy Plain encoding: the page holds the values back to back, fixed width, no validity (nulls were
 * written as zero values); booleans are bit-packed from bit 0; a fixed-size list stores its items
 * (themselves plain) {@code dim} per row.
 */
final class PlainDecoder {

    private PlainDecoder() {
    }

    /** True for the types Plain stores (upstream's fixed-stride types). */
    static boolean handles(Field f) {
        ArrowType t = f.getType();
        if (t instanceof ArrowType.FixedSizeList) {
            return !f.getChildren().isEmpty() && handles(f.getChildren().get(0));
        }
        return t instanceof ArrowType.Bool || width(t) > 0;
    }

    /** Bytes per value of a fixed-width type, 0 for others. */
    static int width(ArrowType t) {
        return Math.max(0, io.javelin.encoding.writer.LeafType.fixedWidth(t));
    }

    /** Rows {@code [from, to)} of a page at {@code position} holding {@code length} values. */
    static Mono<Piece> read(V1Pages io, Field f, long position, long length, long from, long to) {
        if (to > length) {
            return Mono.error(io.corrupt(position, "Legacy page of field " + f.getName() + " holds " + length
                    + " values, rows up to " + to + " requested"));
        }
        ArrowType t = f.getType();
        if (t instanceof ArrowType.FixedSizeList fsl) {
            long dim = fsl.getListSize();
            if (dim <= 0) {
                return Mono.error(new UnsupportedEncodingException(io.resource(), position, "Fixed-size list of size " + dim));
            }
            Field item = f.getChildren().get(0);
            return read(io, item, position, Math.multiplyExact(length, dim), from * dim, to * dim)
                    .map(items -> new Piece.FixedList((int) dim, items));
        }
        if (t instanceof ArrowType.Bool) {
            long first = from / 8;
            long last = (to + 7) / 8;
            return io.bytes(position + first, last - first).map(b -> new Piece.Bits(b, (int) (from % 8), (int) (to - from)));
        }
        int w = width(t);
        if (w <= 0) {
            return Mono.error(new UnsupportedEncodingException(io.resource(), position, "Legacy plain page of type " + t
                    + " (field " + f.getName() + ")"));
        }
        return io.bytes(Math.addExact(position, Math.multiplyExact(from, w)), Math.multiplyExact(to - from, w))
                .map(b -> new Piece.Fixed(b, w));
    }
}
