package io.javelin.encoding.writer.v21;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LeafValues;
import java.util.Map;

/** Picks the mini-block value compression of a page (file-format.md §10.3). */
final class ValueChooser21 {
    private ValueChooser21() {
    }

    static MiniBlockValues miniBlock(LeafValues v, LanceFileVersion version, Map<String, String> meta) {
        return switch (v.type().kind()) {
            case FIXED, BOOL -> MiniBlockCompressors.flat(v);
            case FSL -> MiniBlockCompressors.fsl(v);
            case VARIABLE -> MiniBlockCompressors.variable(v);
        };
    }
}
