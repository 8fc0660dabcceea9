package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.LanceFileVersion;

/** Block codec of the rep or def levels of a mini-block page, chosen once per page, applied per chunk. */
abstract class LevelCodec {
    abstract CompressiveEncoding encoding();

    abstract byte[] encode(short[] levels, int start, int count);

    static LevelCodec choose(short[] levels, int n, LanceFileVersion version) {
        return new Raw();
    }

    /** Raw u16 levels (Flat 16): always legal. */
    static final class Raw extends LevelCodec {
        @Override
        CompressiveEncoding encoding() {
            return Encodings21.flat(16);
        }

        @Override
        byte[] encode(short[] levels, int start, int count) {
            Bytes b = new Bytes(count * 2);
            for (int i = 0; i < count; i++) {
                b.u16(levels[start + i]);
            }
            return b.toArray();
        }
    }
}
