package io.javelin.encoding.v1;

import io.javelin.encoding.file.LanceField;
import org.apache.arrow.vector.types.pojo.ArrowType;
import reactor.core.publisher.Mono;

/**
 * Legacy lists: the list field's page holds {@code length + 1} offsets (i32 for list, i64 for large list)
 * into its child, whose rows are stored in the child field's page of the same batch. Lists have no
 * validity in legacy files: every row is a (possibly empty) list.
 */
final class ListDecoder {

    private ListDecoder() {
    }

    static boolean handles(ArrowType t) {
        return t instanceof ArrowType.List || t instanceof ArrowType.LargeList;
    }

    static Mono<Piece> read(V1Pages io, LanceField f, int batch, long position, long length, long from, long to) {
        if (f.children().size() != 1) {
            return Mono.error(io.corrupt(position, "List field " + f.name() + " has " + f.children().size() + " children"));
        }
        if (to > length) {
            return Mono.error(io.corrupt(position, "Legacy offsets page of field " + f.name() + " holds " + length
                    + " entries, rows up to " + to + " requested"));
        }
        int width = f.arrow().getType() instanceof ArrowType.LargeList ? 8 : 4;
        long at = Math.addExact(position, Math.multiplyExact(from, width));
        return io.ints(at, to - from + 1, width).flatMap(pos -> {
            io.ascending(pos, at, "list offsets of field " + f.name());
            long base = pos[0];
            return V1Columns.read(io, f.children().get(0), batch, base, pos[pos.length - 1]).map(child -> {
                long[] rel = new long[pos.length];
                for (int i = 0; i < pos.length; i++) {
                    rel[i] = pos[i] - base;
                }
                return new Piece.ListOf(rel, child);
            });
        });
    }
}
