package io.javelin.encoding.v1;

import io.javelin.encoding.CorruptFileException;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseLargeVariableWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.LargeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * Copies decoded legacy rows into Arrow vectors allocated from the scan's allocator. Rows are appended in
 * index order (a batch may gather several pieces: batches of the file, or the rows of a take).
 */
final class PieceAppender {

    private final String resource;

    PieceAppender(String resource) {
        this.resource = resource;
    }

    /** Writes rows {@code [from, from + n)} of {@code p} at index {@code at} of {@code v}. */
    void append(FieldVector v, int at, Piece p, int from, int n) {
        if (n == 0) {
            return;
        }
        if (from < 0 || from + n > p.rows()) {
            throw new CorruptFileException(resource, -1, "Legacy rows [" + from + ", +" + n + ") outside a page of " + p.rows());
        }
        switch (p) {
            case Piece.Fixed f -> fixed(v, at, f, from, n);
            case Piece.Bits b -> {
                BitVector bv = cast(v, BitVector.class, p);
                for (int i = 0; i < n; i++) {
                    bv.setSafe(at + i, b.get(from + i) ? 1 : 0);
                }
            }
            case Piece.FixedList fl -> {
                FixedSizeListVector fv = cast(v, FixedSizeListVector.class, p);
                for (int i = 0; i < n; i++) {
                    fv.startNewValue(at + i);
                }
                append(fv.getDataVector(), at * fl.dim(), fl.items(), from * fl.dim(), n * fl.dim());
            }
            case Piece.Binary b -> binary(v, at, b, from, n);
            case Piece.ListOf l -> list(v, at, l, from, n);
            case Piece.Struct s -> {
                StructVector sv = cast(v, StructVector.class, p);
                var children = sv.getChildrenFromFields();
                if (children.size() != s.children().size()) {
                    throw new CorruptFileException(resource, -1, "Struct " + v.getName() + " has " + children.size()
                            + " children, " + s.children().size() + " decoded");
                }
                for (int i = 0; i < n; i++) {
                    sv.setIndexDefined(at + i);
                }
                for (int k = 0; k < children.size(); k++) {
                    append(children.get(k), at, s.children().get(k), from, n);
                }
            }
            case Piece.Nulls x -> cast(v, NullVector.class, p);
        }
    }

    private void fixed(FieldVector v, int at, Piece.Fixed f, int from, int n) {
        BaseFixedWidthVector fw = cast(v, BaseFixedWidthVector.class, f);
        if (fw.getTypeWidth() != f.width()) {
            throw new CorruptFileException(resource, -1, "Legacy values of " + f.width() + " bytes for " + v.getField());
        }
        while (fw.getValueCapacity() < at + n) {
            fw.reAlloc();
        }
        long w = f.width();
        fw.getDataBuffer().setBytes(at * w, f.data(), Math.toIntExact(from * w), n * w);
        for (int i = 0; i < n; i++) {
            BitVectorHelper.setBit(fw.getValidityBuffer(), at + i);
        }
    }

    private void binary(FieldVector v, int at, Piece.Binary b, int from, int n) {
        long[] o = b.offsets();
        for (int i = 0; i < n; i++) {
            int s = (int) o[from + i];
            int len = (int) (o[from + i + 1] - s);
            boolean isNull = b.emptyIsNull() && len == 0;
            if (v instanceof BaseVariableWidthVector vw) {
                if (isNull) {
                    vw.setNull(at + i);
                } else {
                    vw.setSafe(at + i, b.data(), s, len);
                }
            } else if (v instanceof BaseLargeVariableWidthVector lw) {
                if (isNull) {
                    lw.setNull(at + i);
                } else {
                    lw.setSafe(at + i, b.data(), s, len);
                }
            } else {
                throw mismatch(v, b);
            }
        }
    }

    private void list(FieldVector v, int at, Piece.ListOf l, int from, int n) {
        long[] o = l.offsets();
        long childFrom = o[from];
        long childRows = o[from + n] - childFrom;
        long childAt;
        if (v instanceof ListVector lv) {
            childAt = lv.startNewValue(at);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    lv.startNewValue(at + i);
                }
                lv.endValue(at + i, (int) (o[from + i + 1] - o[from + i]));
            }
            append(lv.getDataVector(), Math.toIntExact(childAt), l.child(), Math.toIntExact(childFrom), Math.toIntExact(childRows));
        } else if (v instanceof LargeListVector lv) {
            childAt = lv.startNewValue((long) at);
            for (int i = 0; i < n; i++) {
                if (i > 0) {
                    lv.startNewValue((long) at + i);
                }
                lv.endValue(at + i, o[from + i + 1] - o[from + i]);
            }
            append(lv.getDataVector(), Math.toIntExact(childAt), l.child(), Math.toIntExact(childFrom), Math.toIntExact(childRows));
        } else {
            throw mismatch(v, l);
        }
    }

    private <T> T cast(FieldVector v, Class<T> type, Piece p) {
        if (!type.isInstance(v)) {
            throw mismatch(v, p);
        }
        return type.cast(v);
    }

    private CorruptFileException mismatch(FieldVector v, Piece p) {
        return new CorruptFileException(resource, -1, "Legacy " + p.getClass().getSimpleName() + " page for field "
                + v.getField() + " of another type");
    }
}
