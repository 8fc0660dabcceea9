package io.javelin.encoding.v1;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.pb.file.Metadata;

/**
 * A legacy file's {@code lance.file.Metadata}: row boundaries of its batches ({@code batch_offsets}, starting
 * at 0), where the page table is, and where an embedded manifest is (0: none, the dataset's schema applies).
 */
record V1Layout(long[] batchOffsets, long pageTablePosition, long manifestPosition) {

    static V1Layout parse(String resource, long at, byte[] proto, long fileSize) {
        Metadata m;
        try {
            m = Metadata.parseFrom(proto);
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptFileException(resource, at, "Bad legacy file metadata: " + e.getMessage(), e);
        }
        long[] offsets = new long[m.getBatchOffsetsCount()];
        for (int i = 0; i < offsets.length; i++) {
            offsets[i] = m.getBatchOffsets(i);
            if (offsets[i] < 0 || (i == 0 && offsets[i] != 0) || (i > 0 && offsets[i] < offsets[i - 1])) {
                throw new CorruptFileException(resource, at, "Legacy batch offsets not ascending from 0: " + m.getBatchOffsetsList());
            }
        }
        long pt = m.getPageTablePosition();
        long mp = m.getManifestPosition();
        if (pt < 0 || pt > fileSize || mp < 0 || mp > fileSize) {
            throw new CorruptFileException(resource, at, "Legacy page table " + pt + " or manifest " + mp
                    + " outside the file of " + fileSize + " bytes");
        }
        return new V1Layout(offsets, pt, mp);
    }

    int numBatches() {
        return Math.max(0, batchOffsets.length - 1);
    }

    long numRows() {
        return batchOffsets.length == 0 ? 0 : batchOffsets[batchOffsets.length - 1];
    }

    /** The batch holding row {@code row} (0 <= row < numRows). */
    int batchOf(long row) {
        int lo = 0;
        int hi = numBatches() - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (batchOffsets[mid] <= row) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
