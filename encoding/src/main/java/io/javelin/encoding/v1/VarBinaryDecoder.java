package io.javelin.encoding.v1;

import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import reactor.core.publisher.Mono;

/**
 * Legacy VarBinary encoding (utf8, binary and their large forms): the value bytes, then {@code length + 1}
 * i64 file positions at the page position; value i is the bytes between positions i and i+1. No
 * validity is stored: a nullable field reads an empty value as null (upstream's reader does the same).
 */
final class VarBinaryDecoder {

    private VarBinaryDecoder() {
    }

    static boolean handles(ArrowType t) {
        return t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8 || t instanceof ArrowType.Binary
                || t instanceof ArrowType.LargeBinary;
    }

    static Mono<Piece> read(V1Pages io, Field f, long position, long length, long from, long to) {
        if (to > length) {
            return Mono.error(io.corrupt(position, "Legacy page of field " + f.getName() + " holds " + length
                    + " values, rows up to " + to + " requested"));
        }
        long at = Math.addExact(position, Math.multiplyExact(from, 8));
        return io.ints(at, to - from + 1, 8).flatMap(pos -> {
            io.ascending(pos, at, "value positions of field " + f.getName());
            long start = pos[0];
            return io.bytes(start, pos[pos.length - 1] - start).map(data -> {
                long[] rel = new long[pos.length];
                for (int i = 0; i < pos.length; i++) {
                    rel[i] = pos[i] - start;
                }
                return new Piece.Binary(rel, data, f.isNullable());
            });
        });
    }
}
