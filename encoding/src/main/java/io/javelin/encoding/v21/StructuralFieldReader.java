package io.javelin.encoding.v21;

import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.DirectAssembler;
import io.javelin.encoding.arrow.DirectPage;
import io.javelin.encoding.io.SharedMemory;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.FullZipLayout;
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
import io.javelin.encoding.pb.v21.PageLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/** Reads one top-level field of a 2.1+ file: one column per leaf, nesting from rep/def levels. */
public final class StructuralFieldReader implements FieldReader {

    private final LanceFileMetadata md;
    private final LanceField field;
    private final List<Leaf> leaves = new ArrayList<>();

    record Leaf(LanceField field, int column, LeafKind kind, long[] pageStarts) {
    }

    private final io.javelin.encoding.file.DecodeOptions decode;

    public StructuralFieldReader(LanceFileMetadata md, LanceField field) {
        this(md, field, io.javelin.encoding.file.DecodeOptions.DEFAULT);
    }

    public StructuralFieldReader(LanceFileMetadata md, LanceField field, io.javelin.encoding.file.DecodeOptions decode) {
        this.md = md;
        this.decode = decode;
        this.field = field;
        collect(field);
        this.nested = field.column() < 0 && io.javelin.encoding.arrow.NestedDirectAssembler.supportsField(field.arrow())
                && plainLeaves(field);
    }

    /** True if every leaf column under {@code f} is a plain leaf (no packed struct, no blob). */
    private static boolean plainLeaves(LanceField f) {
        if (f.column() >= 0) {
            return !(f.arrow().getType() instanceof ArrowType.Struct) && !f.blob() && !f.packed();
        }
        if (f.children().isEmpty()) {
            return false;
        }
        for (LanceField c : f.children()) {
            if (!plainLeaves(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * A nested field (structs, at most one list per path, plain leaves) whose leaf pages decode natively
     * (with native decode on) and whose scan batches assemble without copies.
     */
    private final boolean nested;

    private void collect(LanceField f) {
        if (f.column() >= 0) {
            ColumnMetadata col = md.columns().get(f.column());
            long[] starts = new long[col.getPagesCount() + 1];
            for (int p = 0; p < col.getPagesCount(); p++) {
                starts[p + 1] = starts[p] + col.getPages(p).getLength();
                if (starts[p + 1] < starts[p]) {
                    throw new CorruptFileException(md.resource(), md.cmoPositions()[f.column()], "Page row counts overflow");
                }
            }
            if (starts[col.getPagesCount()] != md.numRows()) {
                throw new CorruptFileException(md.resource(), md.cmoPositions()[f.column()], "Column " + f.column() + " pages hold "
                        + starts[col.getPagesCount()] + " rows vs " + md.numRows() + " in the file");
            }
            leaves.add(new Leaf(f, f.column(), LeafKind.of(f.arrow()), starts));
            return;
        }
        for (LanceField c : f.children()) {
            collect(c);
        }
    }

    @Override
    public List<PageRef> pagesFor(List<long[]> ranges) {
        List<PageRef> out = new ArrayList<>();
        for (Leaf l : leaves) {
            for (long[] r : ranges) {
                for (int p = firstPage(l, r[0]); p < l.pageStarts.length - 1 && l.pageStarts[p] < r[1]; p++) {
                    PageRef ref = new PageRef(l.column, p);
                    if (!out.contains(ref)) {
                        out.add(ref);
                    }
                }
            }
        }
        return out;
    }

    private static int firstPage(Leaf l, long row) {
        int i = Arrays.binarySearch(l.pageStarts, row);
        int p = i >= 0 ? i : -i - 2;
        // skip empty pages at the same start
        while (p < l.pageStarts.length - 2 && l.pageStarts[p + 1] <= row) {
            p++;
        }
        return Math.max(0, p);
    }

    @Override
    public Object decodePage(PageRef ref, List<Buf> buffers) {
        return decodePage(ref, buffers, null);
    }

    /**
     * Pages of top-level leaves (and, with native decode on, of the leaves of nested fields this class
     * assembles directly) become {@link DirectPage}s (native memory in Arrow layout, with per-layer validity
     * and list row offsets for nested leaves): a full-zip page of fixed-width values without control words is
     * its read buffer itself (a reference on {@code memory} is kept, no copy); other pages decode into native
     * memory ({@link NativePages}, {@link NativeLevels}) or are decoded on the heap and copied off-heap once,
     * so that scan batches wrap slices of them instead of copying per batch.
     */
    @Override
    public Object decodePage(PageRef ref, List<Buf> buffers, SharedMemory memory) {
        Leaf leaf = leafOf(ref.column());
        ColumnMetadata.Page page = md.columns().get(ref.column()).getPages(ref.page());
        long at = md.cmoPositions()[ref.column()];
        PageLayout layout = layout(ref.column(), ref.page());
        boolean top = field.column() >= 0;
        boolean direct = memory != null && decode.direct() && (top || nested && decode.nativeDecode());
        RepDef rd = new RepDef(md.resource(), at, StructuralPages.layers(layout));
        direct &= top || NativePages.flat(rd) || NativeLevels.supports(rd);
        if (direct && layout.hasFullZipLayout() && !buffers.isEmpty() && buffers.get(0).seg().isNative()
                && (top || NativePages.flat(rd))) {
            DirectPage dp = fullZipDirect(layout.getFullZipLayout(), buffers.get(0), page.getLength(), leaf.kind, memory);
            if (dp != null) {
                return top ? dp : NativePages.Layers.attach(dp, null, rd);
            }
        }
        direct &= decode.nativeDecode();
        direct &= DirectAssembler.supportsField(leaf.field.arrow());
        if (direct && layout.hasMiniBlockLayout() && page.getLength() <= Compressions.MAX_VALUES) {
            if (NativePages.supports(layout.getMiniBlockLayout(), leaf.kind, rd)) {
                return NativePages.miniBlock(md.resource(), at, layout.getMiniBlockLayout(), buffers, (int) page.getLength(), leaf.kind, rd);
            }
        } else if (direct && layout.hasFullZipLayout() && page.getLength() <= Compressions.MAX_VALUES) {
            DirectPage dp = NativePages.fullZip(md.resource(), at, layout.getFullZipLayout(), buffers, (int) page.getLength(), leaf.kind, rd);
            if (dp != null) {
                return dp;
            }
        }
        Object decoded = StructuralPages.decode(md.resource(), at, layout, buffers, page.getLength(), leaf.kind, md.fileSize());
        if (direct && decoded instanceof LeafPage lp) {
            DirectPage dp = NativePages.copyOf(lp, rd);
            if (dp != null) {
                return dp;
            }
        }
        return decoded;
    }

    /** The zero-copy case: no rep/def, fixed-width values back to back, nothing to decode. */
    private DirectPage fullZipDirect(FullZipLayout fz, Buf data, long rows, LeafKind kind, SharedMemory memory) {
        if (fz.getBitsRep() != 0 || fz.getBitsDef() != 0 || fz.getDetailsCase() != FullZipLayout.DetailsCase.BITS_PER_VALUE
                || kind.variable() || kind.bitsPerValue() % 8 != 0 || fz.getBitsPerValue() != kind.bitsPerValue()
                || Integer.toUnsignedLong(fz.getNumItems()) != rows) {
            return null;
        }
        CompressiveEncoding vc = fz.getValueCompression();
        boolean flat = vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT
                || vc.getCompressionCase() == CompressiveEncoding.CompressionCase.FIXED_SIZE_LIST
                && !vc.getFixedSizeList().getHasValidity()
                && vc.getFixedSizeList().getValues().getCompressionCase() == CompressiveEncoding.CompressionCase.FLAT;
        if (!flat || rows > Integer.MAX_VALUE) {
            return null;
        }
        long bytes = rows * (kind.bitsPerValue() / 8);
        data.check(0, bytes);
        return DirectPage.fixed((int) rows, kind.bitsPerValue(), kind.itemsPerValue(), data.seg().asSlice(0, bytes), memory);
    }

    @Override
    public org.apache.arrow.vector.FieldVector assembleDirect(List<long[]> ranges, Function<PageRef, Object> pages,
                                                             org.apache.arrow.memory.BufferAllocator allocator) {
        if (field.column() < 0 && nested && ranges.size() == 1 && decode.nativeDecode()) {
            return assembleNested(ranges.get(0)[0], ranges.get(0)[1], pages, allocator);
        }
        if (field.column() < 0 || ranges.size() != 1 || leaves.size() != 1) {
            return null;
        }
        Leaf l = leaves.get(0);
        long from = ranges.get(0)[0];
        long to = ranges.get(0)[1];
        // the pages under [from, to): one is wrapped, several (a batch straddling pages) are copied once natively
        return DirectAssembler.toVector(field.arrow(), l.pageStarts, p -> pages.apply(new PageRef(l.column, p)), from, to, allocator);
    }

    /** A nested batch from the native pages of its leaves, or null when a page under the range is not native. */
    private org.apache.arrow.vector.FieldVector assembleNested(long from, long to, Function<PageRef, Object> pages,
                                                              org.apache.arrow.memory.BufferAllocator allocator) {
        if (to <= from) {
            return null;
        }
        List<io.javelin.encoding.arrow.NestedDirectAssembler.Slices> slices = new ArrayList<>(leaves.size());
        for (Leaf l : leaves) {
            List<DirectPage> parts = new ArrayList<>(1);
            List<Integer> f0 = new ArrayList<>(1);
            List<Integer> f1 = new ArrayList<>(1);
            for (long row = from; row < to; ) {
                int p = firstPage(l, row);
                if (p >= l.pageStarts.length - 1 || !(pages.apply(new PageRef(l.column, p)) instanceof DirectPage dp)) {
                    return null;
                }
                int a = (int) (row - l.pageStarts[p]);
                int b = (int) (Math.min(to, l.pageStarts[p + 1]) - l.pageStarts[p]);
                if (b <= a) {
                    return null;
                }
                parts.add(dp);
                f0.add(a);
                f1.add(b);
                row = l.pageStarts[p] + b;
            }
            slices.add(new io.javelin.encoding.arrow.NestedDirectAssembler.Slices(parts, f0.stream().mapToInt(Integer::intValue).toArray(),
                    f1.stream().mapToInt(Integer::intValue).toArray()));
        }
        return io.javelin.encoding.arrow.NestedDirectAssembler.toVector(field.arrow(), slices, allocator);
    }

    /** Rows of a page decoded partially: {@code rows[i]} (page-local) is row i of {@code page}. */
    record SparseRows(long[] rows, LeafPage page) {
    }

    @Override
    public io.javelin.encoding.file.PartialPage partial(PageRef ref, long[] rows) {
        ColumnMetadata.Page page = md.columns().get(ref.column()).getPages(ref.page());
        long at = md.cmoPositions()[ref.column()];
        PageLayout layout = layout(ref.column(), ref.page());
        Leaf leaf = leafOf(ref.column());
        RepDef rd = new RepDef(md.resource(), at, StructuralPages.layers(layout));
        if (layout.hasConstantLayout() && PartialPlans.pageBytes(page) <= WHOLE_CONSTANT_BYTES) {
            // constant / all-null: read whole with the first round (one take pipeline, cached), decoded on the heap
            return PartialPlans.whole(page, bufs -> StructuralPages.decode(md.resource(), at, layout, bufs, page.getLength(), leaf.kind,
                    md.fileSize()));
        }
        if (layout.hasMiniBlockLayout() && page.getBufferOffsetsCount() >= 2) {
            return PartialPlans.miniBlock(md.resource(), at, layout.getMiniBlockLayout(), page, rows, leaf.kind, rd,
                    pageIndexes, ((long) ref.column() << 32) | ref.page());
        }
        if (layout.hasFullZipLayout() && page.getBufferOffsetsCount() >= 1) {
            return PartialPlans.fullZip(md.resource(), at, layout.getFullZipLayout(), page, rows, leaf.kind, rd);
        }
        return null;
    }

    /** A take of a top-level leaf without repetition: gathered straight into the vector's buffers ({@link TakeGather}). */
    @Override
    public org.apache.arrow.vector.FieldVector assembleTake(List<long[]> ranges, Function<PageRef, Object> pages,
                                                           org.apache.arrow.memory.BufferAllocator allocator) {
        if (field.column() < 0 || leaves.size() != 1 || !decode.takeGather() || ranges.isEmpty()) {
            return null;
        }
        Leaf t = leaves.get(0);
        return TakeGather.toVector(md.resource(), field.arrow(), t.pageStarts, p -> pages.apply(new PageRef(t.column, p)), ranges,
                allocator);
    }

    /** Constant pages up to this size are planned (read with a take's first round); larger ones are loaded whole apart. */
    static final long WHOLE_CONSTANT_BYTES = 1L << 20;

    /** Parsed chunk tables of mini-block pages taken before (see {@code PartialPlans.PageIndex}). */
    private final PageIndexes pageIndexes = new PageIndexes();

    /** Parsed page layouts: a batch or take asks for the same pages many times. */
    private final java.util.Map<Long, PageLayout> layouts = new java.util.concurrent.ConcurrentHashMap<>();

    private PageLayout layout(int column, int page) {
        return layouts.computeIfAbsent(((long) column << 32) | page, k -> PageEncodings.pageLayout(md.resource(),
                md.cmoPositions()[column], md.columns().get(column).getPages(page).getEncoding()));
    }

    private Leaf leafOf(int column) {
        for (Leaf l : leaves) {
            if (l.column == column) {
                return l;
            }
        }
        throw new IllegalArgumentException("column " + column + " is not part of " + field.name());
    }

    @Override
    public Node assemble(List<long[]> ranges, Function<PageRef, Object> pages) {
        Deque<LeafResult> results = new ArrayDeque<>();
        for (Leaf l : leaves) {
            results.add(leafResult(l, ranges, pages));
        }
        return build(field, 0, results);
    }

    private LeafResult leafResult(Leaf l, List<long[]> ranges, Function<PageRef, Object> pages) {
        LeafResult res = new LeafResult(l.kind.builder().create());
        if (ranges.size() == 1) {
            // a scan batch inside one page: size the builder once from the page's slice
            long from = ranges.get(0)[0];
            long to = ranges.get(0)[1];
            int p = firstPage(l, from);
            Object decoded = pages.apply(new PageRef(l.column, p));
            if (decoded instanceof DirectPage dp && !dp.list() && l.pageStarts[p + 1] >= to && to > from) {
                int v0 = (int) (from - l.pageStarts[p]);
                int v1 = (int) (to - l.pageStarts[p]);
                res.values.reserve(v1 - v0, dp.variable() ? dp.byteStart(v1) - dp.byteStart(v0) : 0);
            } else if (decoded instanceof LeafPage lp && l.pageStarts[p + 1] >= to && to > from) {
                int v0 = lp.visibleBefore(lp.levelStart((int) (from - l.pageStarts[p])));
                int v1 = lp.visibleBefore(lp.levelStart((int) (to - l.pageStarts[p])));
                long bytes = lp.values instanceof Values.Var var ? var.offsets()[v1] - var.offsets()[v0] : 0;
                res.values.reserve(v1 - v0, bytes);
            }
        }
        for (long[] r : ranges) {
            long row = r[0];
            while (row < r[1]) {
                int p = firstPage(l, row);
                Object decoded = pages.apply(new PageRef(l.column, p));
                long pageStart = l.pageStarts[p];
                LeafPage page;
                int from;
                int to;
                if (decoded instanceof SparseRows sr) {
                    page = sr.page();
                    int i = Arrays.binarySearch(sr.rows(), row - pageStart);
                    if (i < 0) {
                        throw new IllegalStateException("row " + row + " was not planned");
                    }
                    int j = i;
                    long end = Math.min(r[1], l.pageStarts[p + 1]) - pageStart;
                    while (j < sr.rows().length && sr.rows()[j] == row - pageStart + (j - i) && sr.rows()[j] < end) {
                        j++;
                    }
                    from = i;
                    to = j;
                    res.append(md.resource(), page, from, to, new RepDef(md.resource(), -1, layersOf(l, p)));
                    row += to - from;
                    continue;
                }
                if (decoded instanceof DirectPage dp) {
                    // a batch straddling pages, or a whole-page take: copy the slice onto the general path
                    int f0 = (int) (row - pageStart);
                    int f1 = (int) Math.min(r[1] - pageStart, dp.rows());
                    if (f1 <= f0) {
                        throw new CorruptFileException(md.resource(), -1, "No progress reading row " + row + " of column " + l.column);
                    }
                    RepDef rd = new RepDef(md.resource(), -1, layersOf(l, p));
                    LeafPage lp = dp.list() ? NativeLevels.leafPage(md.resource(), dp, rd, f0, f1)
                            : new LeafPage(md.resource(), rd, f1 - f0, f1 - f0, null, dp.defLevels(f0, f1), dp.slice(f0, f1));
                    res.append(md.resource(), lp, 0, f1 - f0, rd);
                    row = pageStart + f1;
                    continue;
                }
                page = (LeafPage) decoded;
                from = (int) (row - pageStart);
                to = (int) Math.min(r[1] - pageStart, page.numRows);
                if (to <= from) {
                    throw new CorruptFileException(md.resource(), -1, "No progress reading row " + row + " of column " + l.column);
                }
                res.append(md.resource(), page, from, to, new RepDef(md.resource(), -1, layersOf(l, p)));
                row = pageStart + to;
            }
        }
        return res;
    }

    private List<io.javelin.encoding.pb.v21.RepDefLayer> layersOf(Leaf l, int p) {
        return StructuralPages.layers(layout(l.column, p));
    }

    private Node build(LanceField f, int depth, Deque<LeafResult> results) {
        if (f.column() >= 0) {
            LeafResult r = results.poll();
            int li = r.layers.length - 1 - depth;
            if (li == 1 && f.packed() && f.arrow().getType() instanceof ArrowType.Struct) {
                // 2.2 variable packed struct: an all-valid item layer under the struct's own validity layer
                LayerAcc outer = r.layers[1];
                Values values = r.values.build();
                if (values.count() != outer.slots) {
                    throw new CorruptFileException(md.resource(), -1, "Field " + f.name() + ": " + values.count()
                            + " values for " + outer.slots + " slots");
                }
                return leafNode(f.arrow(), outer.slots, outer.validity(), values);
            }
            if (li != 0) {
                throw new CorruptFileException(md.resource(), -1, "Field " + f.name() + " has " + r.layers.length
                        + " rep/def layers at depth " + depth);
            }
            LayerAcc layer = r.layers[0];
            Values values = r.values.build();
            if (values.count() != layer.slots) {
                throw new CorruptFileException(md.resource(), -1, "Field " + f.name() + ": " + values.count() + " values for "
                        + layer.slots + " slots");
            }
            return leafNode(f.arrow(), layer.slots, layer.validity(), values);
        }
        LeafResult first = results.peek();
        if (first == null) {
            throw new CorruptFileException(md.resource(), -1, "Field " + f.name() + " has no leaf column");
        }
        int li = first.layers.length - 1 - depth;
        if (li <= 0) {
            throw new CorruptFileException(md.resource(), -1, "Field " + f.name() + " nested deeper than its rep/def layers");
        }
        LayerAcc layer = first.layers[li];
        List<Node> kids = new ArrayList<>();
        for (LanceField c : f.children()) {
            kids.add(build(c, depth + 1, results));
        }
        if (f.arrow().getType() instanceof ArrowType.Struct) {
            return new Node(layer.slots, layer.validity(), null, null, kids);
        }
        if (layer.offsets == null) {
            throw new CorruptFileException(md.resource(), -1, "List field " + f.name() + " without a list layer");
        }
        return new Node(layer.slots, layer.validity(), layer.offsetsArray(), null, kids);
    }

    /** A leaf node of the Arrow field (fixed-size lists and packed structs get their children). */
    static Node leafNode(Field arrow, int length, byte[] validity, Values values) {
        if (arrow.getType() instanceof ArrowType.FixedSizeList fsl) {
            Values.Fixed f = (Values.Fixed) values;
            int dim = fsl.getListSize();
            Values items = new Values.Fixed(f.data(), f.bitsPerValue() / dim, length * dim);
            Node child = leafNode(arrow.getChildren().get(0), length * dim, f.itemValidity(), items);
            return new Node(length, validity, null, null, List.of(child));
        }
        if (arrow.getType() instanceof ArrowType.Struct && values instanceof Values.Var rows) {
            return VariablePackedRows.unpack(arrow, length, validity, rows);
        }
        if (arrow.getType() instanceof ArrowType.Struct) {
            Values.Fixed f = (Values.Fixed) values;
            int rowBytes = f.bitsPerValue() / 8;
            List<Node> kids = new ArrayList<>();
            int off = 0;
            for (Field c : arrow.getChildren()) {
                int cb = LeafKind.of(c).bitsPerValue() / 8;
                byte[] out = new byte[length * cb];
                for (int i = 0; i < length; i++) {
                    System.arraycopy(f.data(), i * rowBytes + off, out, i * cb, cb);
                }
                kids.add(Node.leaf(length, null, new Values.Fixed(out, cb * 8, length)));
                off += cb;
            }
            return new Node(length, validity, null, null, kids);
        }
        return Node.leaf(length, validity, values);
    }

    /** Accumulated layers and values of one leaf over several page slices. */
    static final class LeafResult {
        LayerAcc[] layers;
        final ValuesBuilder values;

        LeafResult(ValuesBuilder values) {
            this.values = values;
        }

        void append(String resource, LeafPage page, int fromRow, int toRow, RepDef rd) {
            int l0 = page.levelStart(fromRow);
            int l1 = page.levelStart(toRow);
            RepDef.LayerOut[] outs = rd.unravel(resource, page.rep, page.def, l0, l1 - l0);
            if (layers == null) {
                layers = new LayerAcc[outs.length];
                for (int i = 0; i < outs.length; i++) {
                    layers[i] = new LayerAcc(rd.isList[i]);
                }
            } else if (layers.length != outs.length) {
                throw new CorruptFileException(resource, -1, "Pages of one column have " + layers.length + " and " + outs.length
                        + " rep/def layers");
            }
            for (int i = 0; i < outs.length; i++) {
                layers[i].append(outs[i], i > 0 ? layers[i - 1].slots - outs[i - 1].slots : 0);
            }
            values.append(page.values, page.visibleBefore(l0), page.visibleBefore(l1));
        }
    }

    /** One layer's validity and offsets over several page slices (validity allocated at the first null). */
    static final class LayerAcc {
        byte[] validity;
        long[] offsets;
        int slots;

        LayerAcc(boolean list) {
            if (list) {
                offsets = new long[16];
            }
        }

        /** {@code childBase}: child slots that existed before this part (already appended). */
        void append(RepDef.LayerOut o, long childBase) {
            if (o.anyNull || validity != null) {
                int need = Bits.bytesFor(slots + o.slots) + 1;
                if (validity == null) {
                    validity = new byte[Math.max(need, 16)];
                    fillOnes(validity, 0, slots);
                } else if (validity.length < need) {
                    validity = Arrays.copyOf(validity, Math.max(need, validity.length * 2));
                }
                if (o.anyNull) {
                    Bits.copy(o.validity, 0, validity, slots, o.slots);
                } else {
                    fillOnes(validity, slots, o.slots);
                }
            }
            if (offsets != null) {
                if (offsets.length < slots + o.slots + 1) {
                    offsets = Arrays.copyOf(offsets, Math.max(slots + o.slots + 1, offsets.length * 2));
                }
                for (int i = 0; i <= o.slots; i++) {
                    offsets[slots + i] = o.offsets[i] + childBase;
                }
            }
            slots += o.slots;
        }

        private static void fillOnes(byte[] bits, long from, long n) {
            long i = 0;
            while (i < n && ((from + i) & 7) != 0) {
                Bits.set(bits, from + i);
                i++;
            }
            int full = (int) ((n - i) >>> 3);
            if (full > 0) {
                int b0 = (int) ((from + i) >>> 3);
                Arrays.fill(bits, b0, b0 + full, (byte) -1);
                i += (long) full << 3;
            }
            for (; i < n; i++) {
                Bits.set(bits, from + i);
            }
        }

        byte[] validity() {
            return validity == null ? null : Arrays.copyOf(validity, Bits.bytesFor(slots));
        }

        long[] offsetsArray() {
            return Arrays.copyOf(offsets, slots + 1);
        }
    }
}
