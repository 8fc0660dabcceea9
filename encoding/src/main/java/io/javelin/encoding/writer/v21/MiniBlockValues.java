package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.writer.Bytes;
import java.util.List;

/** Page values cut into mini-block chunks, the encoding that describes them, and an optional dictionary. */
record MiniBlockValues(List<Chunk> chunks, CompressiveEncoding encoding, Dict dict) {
    MiniBlockValues(List<Chunk> chunks, CompressiveEncoding encoding) {
        this(chunks, encoding, null);
    }

    /** A mini-block dictionary: page buffer 2, its block encoding and item count. */
    record Dict(Bytes buffer, CompressiveEncoding encoding, long items) {
    }
}
