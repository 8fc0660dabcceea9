package io.javelin.encoding.v20;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.file.FieldReader;
import io.javelin.encoding.file.LanceField;
import io.javelin.encoding.file.LanceFileMetadata;
import io.javelin.encoding.file.PageEncodings;
import io.javelin.encoding.file.PageRef;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.ColumnMetadata;
import io.javelin.encoding.pb.v20.ArrayEncoding;
import io.javelin.encoding.v21.LeafKind;
import io.javelin.encoding.v21.StructuralFieldReaderSupport;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * Reads one top-level field of a 2.0 file: a column per field (struct headers, list offsets, leaves);
 * list items are addressed by item index through the offsets.
 */
public final class LegacyFieldReader implements FieldReader {

    private final LanceFileMetadata md;
    private final LanceField field;
    private final Map<Integer, long[]> pageStarts = new HashMap<>();

    /** A decoded 2.0 leaf page. */
    record LeafPage(int n, Values values, byte[] validity) {
    }

    /** A decoded 2.0 list offsets page: {@code offsets[0] == 0}, page-relative items. */
    record ListPage(int n, long[] offsets, byte[] validity) {
    }

    private final io.javelin.encoding.file.DecodeOptions decode;

    public LegacyFieldReader(LanceFileMetadata md, LanceField field) {
        this(md, field, io.javelin.encoding.file.DecodeOptions.DEFAULT);
    }

    public LegacyFieldReader(LanceFileMetadata md, LanceField field, io.javelin.encoding.file.DecodeOptions decode) {
        this.md = md;
        this.decode = decode;
        this.field = field;
        index(field);
    }

    private void index(LanceField f) {
        if (f.column() >= 0) {
            ColumnMetadata col = md.columns().get(f.column());
            long[] starts = new long[col.getPagesCount() + 1];
            for (int p = 0; p < col.getPagesCount(); p++) {
                long len = f.isList() ? listItems(f.column(), p) : col.getPages(p).getLength();
                starts[p + 1] = starts[p] + (f.isList() ? col.getPages(p).getLength() : len);
            }
            pageStarts.put(f.column(), starts);
            if (f.isList()) {
                long[] items = new long[col.getPagesCount() + 1];
                for (int p = 0; p < col.getPagesCount(); p++) {
                    items[p + 1] = items[p] + listItems(f.column(), p);
                }
                pageStarts.put(-1 - f.column(), items);
            }
        }
        if (!f.packed()) {
            for (LanceField c : f.children()) {
                index(c);
            }
        }
    }

    private ArrayEncoding encoding(int column, int page) {
        ColumnMetadata.Page pg = md.columns().get(column).getPages(page);
        return PageEncodings.arrayEncoding(md.resource(), md.cmoPositions()[column], pg.getEncoding());
    }

    private long listItems(int column, int page) {
        ArrayEncoding e = encoding(column, page);
        if (!e.hasList()) {
            throw new CorruptFileException(md.resource(), md.cmoPositions()[column], "List column page is " + e.getArrayEncodingCase());
        }
        return e.getList().getNumItems();
    }

    @Override
    public List<PageRef> pagesFor(List<long[]> ranges) {
        List<PageRef> out = new ArrayList<>();
        collectPages(field, ranges, false, out);
        return out;
    }

    /** List items narrowed to the rows' item ranges once the list offsets pages are loaded. */
    @Override
    public List<PageRef> pagesFor(List<long[]> ranges, Function<PageRef, Object> loaded) {
        List<PageRef> out = new ArrayList<>();
        collectPages(field, ranges, loaded, out);
        return out;
    }

    private void collectPages(LanceField f, List<long[]> ranges, Function<PageRef, Object> loaded, List<PageRef> out) {
        if (f.column() >= 0 && (!f.isStruct() || f.packed())) {
            pagesOf(f, ranges, out);
        }
        if (f.packed()) {
            return;
        }
        if (f.isList()) {
            List<long[]> items = itemRanges(f, ranges, loaded);
            if (items != null) { // else: the offsets first
                collectPages(f.children().get(0), items, loaded, out);
            }
            return;
        }
        for (LanceField c : f.children()) {
            collectPages(c, ranges, loaded, out);
        }
    }

    private void pagesOf(LanceField f, List<long[]> ranges, List<PageRef> out) {
        long[] starts = pageStarts.get(f.column());
        for (int p = 0; p < starts.length - 1; p++) {
            boolean hit = false;
            for (long[] r : ranges) {
                hit |= starts[p] < r[1] && starts[p + 1] > r[0];
            }
            if (hit && !out.contains(new PageRef(f.column(), p))) {
                out.add(new PageRef(f.column(), p));
            }
        }
    }

    /** The item ranges of the rows of {@code ranges} of list field {@code f}, or null if an offsets page is not loaded. */
    private List<long[]> itemRanges(LanceField f, List<long[]> ranges, Function<PageRef, Object> loaded) {
        long[] starts = pageStarts.get(f.column());
        long[] itemStarts = pageStarts.get(-1 - f.column());
        List<long[]> out = new ArrayList<>();
        for (long[] r : ranges) {
            long row = r[0];
            while (row < r[1]) {
                int p = page(starts, row);
                if (!(loaded.apply(new PageRef(f.column(), p)) instanceof ListPage lp)) {
                    return null;
                }
                int from = (int) (row - starts[p]);
                int to = (int) Math.min(r[1] - starts[p], lp.n());
                if (to <= from) {
                    throw new CorruptFileException(md.resource(), -1, "No progress reading row " + row + " of column " + f.column());
                }
                long s = itemStarts[p] + lp.offsets()[from];
                long e = itemStarts[p] + lp.offsets()[to];
                if (e > s) {
                    if (!out.isEmpty() && out.get(out.size() - 1)[1] == s) {
                        out.get(out.size() - 1)[1] = e;
                    } else {
                        out.add(new long[] {s, e});
                    }
                }
                row = starts[p] + to;
            }
        }
        return out;
    }

    private void collectPages(LanceField f, List<long[]> ranges, boolean all, List<PageRef> out) {
        // plain struct columns hold only headers; a packed struct's one column holds its rows of child values
        if (f.column() >= 0 && (!f.isStruct() || f.packed())) {
            long[] starts = pageStarts.get(f.column());
            for (int p = 0; p < starts.length - 1; p++) {
                boolean hit = all;
                for (long[] r : ranges) {
                    hit |= starts[p] < r[1] && starts[p + 1] > r[0];
                }
                if (hit && !out.contains(new PageRef(f.column(), p))) {
                    out.add(new PageRef(f.column(), p));
                }
            }
        }
        if (!f.packed()) {
            for (LanceField c : f.children()) {
                collectPages(c, ranges, all || f.isList(), out);
            }
        }
    }

    /**
     * Pages of a top-level leaf in the common plain encodings become {@link io.javelin.encoding.arrow.DirectPage}s
     * over the read buffers ({@link NativeArrays}); every other page decodes on the heap.
     */
    @Override
    public Object decodePage(PageRef ref, List<Buf> buffers, io.javelin.encoding.io.SharedMemory memory) {
        if (memory != null && field.column() == ref.column() && decode.direct() && decode.nativeDecode()
                && !field.packed() && !field.blob() && !field.isList() && !field.isStruct()
                && io.javelin.encoding.arrow.DirectAssembler.supportsField(field.arrow()) && !isBlobColumn(ref.column())) {
            long at = md.cmoPositions()[ref.column()];
            Buf ctx = new Buf(md.resource(), at, java.lang.foreign.MemorySegment.ofArray(new byte[0]));
            var direct = NativeArrays.decode(encoding(ref.column(), ref.page()), buffers,
                    md.columns().get(ref.column()).getPages(ref.page()).getLength(), ctx, memory, LeafKind.of(field.arrow()));
            if (direct != null) {
                return direct;
            }
        }
        return decodePage(ref, buffers);
    }

    @Override
    public Object decodePage(PageRef ref, List<Buf> buffers) {
        ColumnMetadata.Page pg = md.columns().get(ref.column()).getPages(ref.page());
        long at = md.cmoPositions()[ref.column()];
        ArrayEncoding e = encoding(ref.column(), ref.page());
        long n = pg.getLength();
        Buf ctx = new Buf(md.resource(), at, java.lang.foreign.MemorySegment.ofArray(new byte[0]));
        if (e.hasList()) {
            var list = e.getList();
            ArrayDecoders.Decoded d = ArrayDecoders.decode(list.getOffsets(), buffers, n, ctx);
            Values.Fixed f = (Values.Fixed) d.values();
            int w = f.bitsPerValue() / 8;
            if (w != 8 && w != 4) {
                throw ctx.corrupt(0, "List offsets of " + f.bitsPerValue() + " bits");
            }
            Buf ob = Buf.ofArray(md.resource(), at, f.data());
            long adj = list.getNullOffsetAdjustment();
            long[] off = new long[(int) n + 1];
            byte[] validity = null;
            for (int i = 0; i < n; i++) {
                long v = ob.uint((long) i * w, w);
                boolean isNull = adj > 0 && Long.compareUnsigned(v, adj) >= 0;
                if (isNull) {
                    v -= adj;
                    if (validity == null) {
                        validity = new byte[Bits.bytesFor(n)];
                        for (int k = 0; k < i; k++) {
                            Bits.set(validity, k);
                        }
                    }
                } else if (validity != null) {
                    Bits.set(validity, i);
                }
                if (v < off[i] || v > list.getNumItems()) {
                    throw ctx.corrupt(0, "List offset " + v + " out of order or past " + list.getNumItems() + " items");
                }
                off[i + 1] = v;
            }
            return new ListPage((int) n, off, validity);
        }
        LanceField f = fieldOf(field, ref.column());
        LeafKind kind = LeafKind.of(f.arrow());
        ArrayDecoders.Decoded d = ArrayDecoders.decode(e, buffers, n, ctx);
        if (d == null) { // all null
            ValuesBuilder vb = new ValuesBuilder(kind.variable(), kind.bitsPerValue(), kind.itemsPerValue());
            vb.appendZeros((int) n);
            return new LeafPage((int) n, vb.build(), new byte[Bits.bytesFor(n)]);
        }
        if (f.blob() || isBlobColumn(ref.column())) {
            if (!(d.values() instanceof Values.Fixed desc)) {
                throw ctx.corrupt(0, "Blob descriptors must be fixed-width");
            }
            return io.javelin.encoding.v21.Blobs.fetch(ctx, md.fileSize(), desc,
                    (values, descs) -> new LeafPage((int) n, values, blobValidity(descs, d.validity())));
        }
        if (f.packed()) {
            checkPackedRow(f, d.values(), ctx);
        }
        if (d.values().count() != n) {
            throw ctx.corrupt(0, "Page decoded " + d.values().count() + " values vs " + n);
        }
        if (f == field && decode.direct() && decode.nativeDecode() && !f.packed() && io.javelin.encoding.arrow.DirectAssembler.supportsField(f.arrow())
                && (d.values() instanceof Values.Var || d.values() instanceof Values.Fixed fx && fx.itemValidity() == null
                && fx.bitsPerValue() % 8 == 0)) {
            // a top-level leaf: copied once into native memory, batches wrap slices of it
            return io.javelin.encoding.arrow.DirectPage.copyOf(d.values(), d.validity(), "page");
        }
        return new LeafPage((int) n, d.values(), d.validity());
    }


    @Override
    public org.apache.arrow.vector.FieldVector assembleDirect(List<long[]> ranges, Function<PageRef, Object> pages,
                                                             org.apache.arrow.memory.BufferAllocator allocator) {
        if (field.column() < 0 || ranges.size() != 1 || field.isList() || field.isStruct()) {
            return null;
        }
        return io.javelin.encoding.arrow.DirectAssembler.toVector(field.arrow(), pageStarts.get(field.column()),
                p -> pages.apply(new PageRef(field.column(), p)), ranges.get(0)[0], ranges.get(0)[1], allocator);
    }

    /**
     * 2.0 blob nulls live in the descriptors: a null is written as {@code (position 1, size 0)}, an empty
     * value as {@code (0, 0)} (upstream's legacy blob decoder: valid unless position == 1 and size == 0).
     * Returns null when every slot is valid.
     */
    static byte[] blobValidity(long[][] descs, byte[] pageValidity) {
        int n = descs.length;
        byte[] validity = null;
        for (int i = 0; i < n; i++) {
            boolean valid = !(descs[i][0] == 1 && descs[i][1] == 0)
                    && (pageValidity == null || Bits.get(pageValidity, i));
            if (!valid && validity == null) {
                validity = new byte[Bits.bytesFor(n)];
                for (int k = 0; k < i; k++) {
                    Bits.set(validity, k);
                }
            } else if (valid && validity != null) {
                Bits.set(validity, i);
            }
        }
        return validity;
    }

    /** A packed struct page's row must be the byte-aligned concatenation of the schema's children. */
    private static void checkPackedRow(LanceField f, Values values, Buf ctx) {
        for (LanceField c : f.children()) {
            int bits;
            try {
                bits = LeafKind.of(c.arrow()).bitsPerValue();
            } catch (IllegalArgumentException e) {
                bits = 0;
            }
            if (bits <= 0 || bits % 8 != 0 || LeafKind.of(c.arrow()).variable()) {
                throw new io.javelin.encoding.UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(),
                        "Packed struct " + f.name() + " child " + c.name() + " (" + c.logicalType() + ") is not byte-aligned fixed-width");
            }
        }
        int rowBits = LeafKind.of(f.arrow()).bitsPerValue();
        if (!(values instanceof Values.Fixed fx) || fx.bitsPerValue() != rowBits) {
            throw ctx.corrupt(0, "Packed struct " + f.name() + " rows of " + (values instanceof Values.Fixed fx2 ? fx2.bitsPerValue() : -1)
                    + " bits, schema children sum to " + rowBits);
        }
    }

    private boolean isBlobColumn(int column) {
        var ce = PageEncodings.columnEncoding(md.resource(), md.cmoPositions()[column], md.columns().get(column).getEncoding());
        return ce != null && ce.hasBlob();
    }

    private static LanceField fieldOf(LanceField f, int column) {
        if (f.column() == column) {
            return f;
        }
        for (LanceField c : f.children()) {
            LanceField x = fieldOf(c, column);
            if (x != null) {
                return x;
            }
        }
        return null;
    }

    @Override
    public Node assemble(List<long[]> ranges, Function<PageRef, Object> pages) {
        return assemble(field, ranges, pages);
    }

    private Node assemble(LanceField f, List<long[]> ranges, Function<PageRef, Object> pages) {
        int length = 0;
        for (long[] r : ranges) {
            length += (int) (r[1] - r[0]);
        }
        if (f.isStruct() && !f.packed()) {
            List<Node> kids = new ArrayList<>();
            for (LanceField c : f.children()) {
                kids.add(assemble(c, ranges, pages));
            }
            return new Node(length, null, null, null, kids);
        }
        long[] starts = pageStarts.get(f.column());
        if (f.isList()) {
            long[] itemStarts = pageStarts.get(-1 - f.column());
            long[] offsets = new long[length + 1];
            byte[] validity = new byte[Bits.bytesFor(length) + 1];
            boolean anyNull = false;
            List<long[]> childRanges = new ArrayList<>();
            int out = 0;
            for (long[] r : ranges) {
                long row = r[0];
                while (row < r[1]) {
                    int p = page(starts, row);
                    ListPage lp = (ListPage) pages.apply(new PageRef(f.column(), p));
                    int from = (int) (row - starts[p]);
                    int to = (int) Math.min(r[1] - starts[p], lp.n());
                    for (int i = from; i < to; i++) {
                        long s = itemStarts[p] + lp.offsets()[i];
                        long e = itemStarts[p] + lp.offsets()[i + 1];
                        offsets[out + 1] = offsets[out] + (e - s);
                        if (lp.validity() == null || Bits.get(lp.validity(), i)) {
                            Bits.set(validity, out);
                        } else {
                            anyNull = true;
                        }
                        if (e > s) {
                            if (!childRanges.isEmpty() && childRanges.get(childRanges.size() - 1)[1] == s) {
                                childRanges.get(childRanges.size() - 1)[1] = e;
                            } else {
                                childRanges.add(new long[] {s, e});
                            }
                        }
                        out++;
                    }
                    row = starts[p] + to;
                }
            }
            Node child = assemble(f.children().get(0), childRanges, pages);
            return new Node(length, anyNull ? Arrays.copyOf(validity, Bits.bytesFor(length)) : null, offsets, null, List.of(child));
        }
        LeafKind kind = LeafKind.of(f.arrow());
        ValuesBuilder vb = new ValuesBuilder(kind.variable(), kind.bitsPerValue(), kind.itemsPerValue());
        byte[] validity = new byte[Bits.bytesFor(length) + 1];
        boolean anyNull = false;
        int out = 0;
        for (long[] r : ranges) {
            long row = r[0];
            while (row < r[1]) {
                int p = page(starts, row);
                Object decoded = pages.apply(new PageRef(f.column(), p));
                if (decoded instanceof io.javelin.encoding.arrow.DirectPage dp) {
                    // a whole-page take or a fallback: copy the rows' slice onto the heap path
                    int from = (int) (row - starts[p]);
                    int to = (int) Math.min(r[1] - starts[p], dp.count());
                    if (to <= from) {
                        throw new CorruptFileException(md.resource(), -1, "No progress at row " + row + " of column " + f.column());
                    }
                    vb.append(dp.slice(from, to), 0, to - from);
                    for (int i = from; i < to; i++, out++) {
                        if (dp.validity() == null || (dp.validity().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i >>> 3) & (1 << (i & 7))) != 0) {
                            Bits.set(validity, out);
                        } else {
                            anyNull = true;
                        }
                    }
                    row = starts[p] + to;
                    continue;
                }
                LeafPage lp = (LeafPage) decoded;
                int from = (int) (row - starts[p]);
                int to = (int) Math.min(r[1] - starts[p], lp.n());
                if (to <= from) {
                    throw new CorruptFileException(md.resource(), -1, "No progress at row " + row + " of column " + f.column());
                }
                vb.append(lp.values(), from, to);
                for (int i = from; i < to; i++, out++) {
                    if (lp.validity() == null || Bits.get(lp.validity(), i)) {
                        Bits.set(validity, out);
                    } else {
                        anyNull = true;
                    }
                }
                row = starts[p] + to;
            }
        }
        Values values = vb.build();
        byte[] v = anyNull ? Arrays.copyOf(validity, Bits.bytesFor(length)) : null;
        return StructuralFieldReaderSupport.leafNode(f.arrow(), length, v, values);
    }

    private static int page(long[] starts, long row) {
        int i = Arrays.binarySearch(starts, row);
        int p = i >= 0 ? i : -i - 2;
        while (p < starts.length - 2 && starts[p + 1] <= row) {
            p++;
        }
        if (p < 0 || p >= starts.length - 1) {
            throw new IllegalStateException("row " + row + " outside pages");
        }
        return p;
    }

    static boolean isStructType(LanceField f) {
        return f.arrow().getType() instanceof ArrowType.Struct;
    }
}
