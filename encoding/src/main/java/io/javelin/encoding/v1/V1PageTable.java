package io.javelin.encoding.v1;

import io.javelin.encoding.CorruptFileException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The page table of a legacy file: for every field id in {@code [minId, maxId]} and every batch, an i64 pair
 * (position, length) — length counts items, not bytes. Ids come from the fragment's {@code DataFile.fields}
 * (first and largest), as upstream sizes the table; fields without pages (structs) hold (0, 0).
 */
record V1PageTable(String resource, int minId, int maxId, int batches, long[] entries) {

    /** Bytes of the table for these bounds; -1 when it cannot exist. */
    static long size(int minId, int maxId, int batches) {
        if (maxId < minId || batches < 0) {
            return -1;
        }
        return ((long) maxId - minId + 1) * batches * 16L;
    }

    static V1PageTable parse(String resource, int minId, int maxId, int batches, byte[] table, long fileSize) {
        ByteBuffer b = ByteBuffer.wrap(table).order(ByteOrder.LITTLE_ENDIAN);
        long[] e = new long[table.length / 8];
        for (int i = 0; i < e.length; i++) {
            e[i] = b.getLong(i * 8);
        }
        for (int i = 0; i < e.length; i += 2) {
            if (e[i] < 0 || e[i] > fileSize || e[i + 1] < 0) {
                throw new CorruptFileException(resource, -1, "Legacy page table entry " + (i / 2) + " (" + e[i] + ", "
                        + e[i + 1] + ") outside the file of " + fileSize + " bytes");
            }
        }
        return new V1PageTable(resource, minId, maxId, batches, e);
    }

    long position(int fieldId, int batch) {
        return entries[index(fieldId, batch)];
    }

    long length(int fieldId, int batch) {
        return entries[index(fieldId, batch) + 1];
    }

    private int index(int fieldId, int batch) {
        if (fieldId < minId || fieldId > maxId || batch < 0 || batch >= batches) {
            throw new CorruptFileException(resource, -1, "No page for field " + fieldId + " batch " + batch
                    + " (page table holds fields " + minId + ".." + maxId + ", " + batches + " batches)");
        }
        return ((fieldId - minId) * batches + batch) * 2;
    }
}
