package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.writer.LeafValues;

/** Variable-width values as start/end offsets into a byte array, plus the encoding describing them. */
record VarData(int count, long[] ends, byte[] data, int offsetBytes, CompressiveEncoding encoding) {
    long start(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    long end(int i) {
        return ends[i];
    }

    static VarData of(LeafValues v) {
        long[] e = new long[v.count()];
        for (int i = 0; i < e.length; i++) {
            e[i] = v.end(i);
        }
        return new VarData(v.count(), e, v.data().array(), v.type().offsetBytes(),
                Encodings21.variable(v.type().offsetBytes() * 8));
    }

    long dataSize() {
        return count == 0 ? 0 : ends[count - 1];
    }
}
