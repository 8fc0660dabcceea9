package io.javelin.interop.writer;

import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.v21.PageLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Minimal footer / column-metadata parsing of our own files, for page-count and layout assertions. */
final class FileInspect {
    private FileInspect() {
    }

    static List<ColumnMetadata> columns(Path file) throws Exception {
        byte[] all = Files.readAllBytes(file);
        ByteBuffer bb = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
        int end = all.length;
        long cmoStart = bb.getLong(end - 32);
        int numCols = bb.getInt(end - 12);
        List<ColumnMetadata> out = new ArrayList<>();
        for (int c = 0; c < numCols; c++) {
            long pos = bb.getLong((int) cmoStart + 16 * c);
            long len = bb.getLong((int) cmoStart + 16 * c + 8);
            out.add(ColumnMetadata.parseFrom(ByteBuffer.wrap(all, (int) pos, (int) len)));
        }
        return out;
    }

    static boolean isStructHeader(ColumnMetadata cm) throws Exception {
        com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(cm.getPages(0).getEncoding().getDirect().getEncoding());
        return io.javelin.encoding.pb.v20.ArrayEncoding.parseFrom(any.getValue()).hasStruct();
    }

    static PageLayout layout(ColumnMetadata.Page page) throws Exception {
        com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(page.getEncoding().getDirect().getEncoding());
        return PageLayout.parseFrom(any.getValue());
    }
}
