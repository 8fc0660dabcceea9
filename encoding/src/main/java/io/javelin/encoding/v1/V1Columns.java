package io.javelin.encoding.v1;

import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.file.LanceField;
import org.apache.arrow.vector.types.pojo.ArrowType;
import reactor.core.publisher.Mono;

/** Picks the legacy decoder of a field by its type, as upstream's legacy reader does. */
final class V1Columns {

    private V1Columns() {
    }

    /** Rows {@code [from, to)} (relative to the batch) of field {@code f} in batch {@code batch}. */
    static Mono<Piece> read(V1Pages io, LanceField f, int batch, long from, long to) {
        return Mono.defer(() -> {
            ArrowType t = f.arrow().getType();
            if (t instanceof ArrowType.Struct) {
                return StructDecoder.read(io, f, batch, from, to);
            }
            long position = io.pageTable().position(f.id(), batch);
            long length = io.pageTable().length(f.id(), batch);
            if (f.arrow().getDictionary() != null) {
                Piece.Binary values = io.dictionaries().get(f.id());
                if (values == null) {
                    return Mono.error(new UnsupportedEncodingException(io.resource(), position, "Legacy dictionary-encoded field "
                            + f.name() + " in a file without an embedded manifest holding its values"));
                }
                return DictionaryDecoder.read(io, f.arrow(), values, position, length, from, to);
            }
            if (t instanceof ArrowType.Null) {
                if (to > length) {
                    return Mono.error(io.corrupt(position, "Legacy null page of field " + f.name() + " holds " + length
                            + " rows, rows up to " + to + " requested"));
                }
                return Mono.just(new Piece.Nulls((int) (to - from)));
            }
            if (ListDecoder.handles(t)) {
                return ListDecoder.read(io, f, batch, position, length, from, to);
            }
            if (VarBinaryDecoder.handles(t)) {
                return VarBinaryDecoder.read(io, f.arrow(), position, length, from, to);
            }
            if (PlainDecoder.handles(f.arrow())) {
                return PlainDecoder.read(io, f.arrow(), position, length, from, to);
            }
            return Mono.error(new UnsupportedEncodingException(io.resource(), position, "Legacy file field " + f.name()
                    + " of type " + t + " (no legacy encoding stores it)"));
        });
    }
}
