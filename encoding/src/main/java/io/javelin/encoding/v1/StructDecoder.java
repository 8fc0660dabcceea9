package io.javelin.encoding.v1;

import io.javelin.encoding.file.LanceField;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Legacy structs: no page of their own and no validity; each child is a field with its own pages. */
final class StructDecoder {

    private StructDecoder() {
    }

    static Mono<Piece> read(V1Pages io, LanceField f, int batch, long from, long to) {
        return Flux.fromIterable(f.children())
                .flatMapSequential(c -> V1Columns.read(io, c, batch, from, to), 4)
                .collectList()
                .map(children -> new Piece.Struct(children, (int) (to - from)));
    }
}
