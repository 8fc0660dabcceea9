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
public final class FileInspect {
    private FileInspect() {
    }

    public static List<ColumnMetadata> columns(Path file) throws Exception {
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

    /** Page encodings of every column, as protobuf text (for assertions on the chosen encodings). */
    public static String describe(Path file, boolean v20) throws Exception {
        StringBuilder sb = new StringBuilder();
        int c = 0;
        for (ColumnMetadata cm : columns(file)) {
            com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(cm.getPages(0).getEncoding().getDirect().getEncoding());
            com.google.protobuf.Message m = v20 ? io.javelin.encoding.pb.v20.ArrayEncoding.parseFrom(any.getValue())
                    : PageLayout.parseFrom(any.getValue());
            String text = stripTables(com.google.protobuf.TextFormat.printer().emittingSingleLine(true).printToString(m));
            sb.append("col ").append(c++).append(" pages=").append(cm.getPagesCount()).append(": ").append(text).append('\n');
        }
        return sb.toString();
    }

    private static String stripTables(String s) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        String key = "symbol_table: \"";
        while (true) {
            int k = s.indexOf(key, i);
            if (k < 0) {
                out.append(s, i, s.length());
                return out.toString();
            }
            out.append(s, i, k).append("symbol_table: ...");
            int j = k + key.length();
            while (s.charAt(j) != '"') {
                j += s.charAt(j) == '\\' ? 2 : 1;
            }
            i = j + 1;
        }
    }

    static PageLayout layout(ColumnMetadata.Page page) throws Exception {
        com.google.protobuf.Any any = com.google.protobuf.Any.parseFrom(page.getEncoding().getDirect().getEncoding());
        return PageLayout.parseFrom(any.getValue());
    }
}
