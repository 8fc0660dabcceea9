package io.javelin.encoding.file;

import io.javelin.encoding.pb.ColumnMetadata;
import java.io.PrintWriter;
import java.util.List;

/** Human-readable dump of a file's metadata (for {@code javelin file inspect}). */
public final class FileInspector {

    private FileInspector() {
    }

    public static void print(LanceFileMetadata md, PrintWriter out) {
        Footer f = md.footer();
        out.printf("file: %s%n", md.resource());
        out.printf("size: %d bytes%n", md.fileSize());
        if (f == null) { // legacy 0.1 / 0.2 file: no v2 footer, columns are pages per batch
            out.printf("version: legacy (0.1 / 0.2)%n");
            out.printf("rows: %d%n", md.numRows());
            out.println("schema:");
            printFields(md.fields(), out, "  ");
            out.flush();
            return;
        }
        out.printf("version: %s (footer %d.%d)%n", f.version().label(), f.major(), f.minor());
        out.printf("rows: %d%n", md.numRows());
        out.printf("footer: column_meta_start=%d cmo_table=%d gbo_table=%d global_buffers=%d columns=%d%n",
                f.columnMetaStart(), f.cmoTableStart(), f.gboTableStart(), f.numGlobalBuffers(), f.numColumns());
        for (int i = 0; i < md.gboPositions().length; i++) {
            out.printf("global buffer %d: [%d, +%d)%s%n", i, md.gboPositions()[i], md.gboSizes()[i], i == 0 ? " schema" : "");
        }
        out.println("schema:");
        printFields(md.fields(), out, "  ");
        if (!md.arrowSchema().getCustomMetadata().isEmpty()) {
            out.println("schema metadata: " + md.arrowSchema().getCustomMetadata().keySet());
        }
        for (int c = 0; c < md.columns().size(); c++) {
            ColumnMetadata col = md.columns().get(c);
            var ce = PageEncodings.columnEncoding(md.resource(), md.cmoPositions()[c], col.getEncoding());
            out.printf("column %d: %d page(s)%s%n", c, col.getPagesCount(),
                    ce == null ? "" : ", encoding " + ProtoText.describe(ce));
            for (int p = 0; p < col.getPagesCount(); p++) {
                var page = col.getPages(p);
                StringBuilder bufs = new StringBuilder();
                for (int b = 0; b < page.getBufferOffsetsCount(); b++) {
                    bufs.append(b == 0 ? "" : ", ").append('[').append(page.getBufferOffsets(b)).append(", +")
                            .append(page.getBufferSizes(b)).append(')');
                }
                out.printf("  page %d: rows=%d priority=%d buffers=[%s]%n", p, page.getLength(), page.getPriority(), bufs);
                out.printf("    %s%n", ProtoText.describe(PageEncodings.pageMessage(md.resource(), md.cmoPositions()[c],
                        page.getEncoding(), md.version())));
            }
        }
        out.flush();
    }

    private static void printFields(List<LanceField> fields, PrintWriter out, String indent) {
        for (LanceField f : fields) {
            out.printf("%s%s: %s%s (id=%d%s)%s%n", indent, f.name(), f.logicalType(), f.nullable() ? "" : " not null", f.id(),
                    f.column() >= 0 ? ", column " + f.column() : "", f.metadata().isEmpty() ? "" : " " + f.metadata());
            printFields(f.children(), out, indent + "  ");
        }
    }
}
