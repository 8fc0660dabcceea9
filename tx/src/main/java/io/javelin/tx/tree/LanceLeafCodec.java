package io.javelin.tx.tree;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.encoding.io.MemorySource;
import io.javelin.encoding.writer.FileEncoder;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.WriteOptions;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Mono;

/**
 * Leaves as Lance files (spec 000: "a leaf is a Lance file"), written with the encoding module's
 * {@link FileEncoder} and read with its {@link LanceFileReader}.
 *
 * <p>The file schema declares the mapping columns as {@code dict:binary:int32:false}, exactly the
 * spec's Arrow schema. Our writer and reader move dictionary columns as their values, so this codec
 * converts at the boundary: on write each index is replaced by its binary value (the writer
 * dictionary-encodes repetitive pages by itself); on read the values are dictionary-encoded again,
 * one dictionary per column with keys local to it (spec: compare decoded vectors, never keys).
 * Nulls survive both directions, so the leaf validator still sees them.
 */
public final class LanceLeafCodec implements LeafCodec {

    /** Leaves at least this large are read in ranges by point resolution when ranged reads are on. */
    public static final long DEFAULT_RANGED_MIN_BYTES = 128 << 10;

    /**
     * {@code -Djavelin.tree.leafPageBytes=8192} writes leaves in pages of about that size and turns
     * ranged point reads on (off by default). Measured on a 9 710-record narrow leaf (one point read,
     * docs/bench/history.md, "Issue 8 results"): 8 MiB pages (default) 621 KB leaf, a ranged read
     * would fetch 668 KB; 64 KiB pages 652 KB / 456 KB; 8 KiB pages 1 070 KB / 150 KB; 1 KiB pages
     * 1 843 KB / 256 KB.
     * Small pages cost the encoder its compression, so every listing and leaf rewrite pays more
     * than a point read saves: whole-leaf reads stay the default.
     */
    public static final String PAGE_BYTES_PROPERTY = "javelin.tree.leafPageBytes";

    private final WriteOptions options;
    private final long rangedMinBytes;

    /**
     * Lance file format 2.2 (any version is allowed by the spec; upstream writes 2.1). Measured on a
     * 9 000-record narrow leaf, interleaved in one JVM: 2.2 files are 1.5 % smaller than 2.1 and
     * decode 13-20 % faster (2.0 decodes faster still but is 2.3x larger). Whole-leaf reads unless
     * {@link #PAGE_BYTES_PROPERTY} is set.
     */
    public LanceLeafCodec() {
        this(Long.getLong(PAGE_BYTES_PROPERTY, 0L));
    }

    private LanceLeafCodec(long pageBytes) {
        this(pageBytes > 0 ? WriteOptions.of(LanceFileVersion.V2_2).withPageSize(pageBytes)
                : WriteOptions.of(LanceFileVersion.V2_2), pageBytes > 0 ? DEFAULT_RANGED_MIN_BYTES : Long.MAX_VALUE);
    }

    /** Leaves always read whole. */
    public LanceLeafCodec(WriteOptions options) {
        this(options, Long.MAX_VALUE);
    }

    /**
     * @param rangedMinBytes leaves of at least this many bytes are read in ranges by point
     *                       resolution ({@code Long.MAX_VALUE}: never); useful with small pages
     */
    public LanceLeafCodec(WriteOptions options, long rangedMinBytes) {
        this.options = options;
        this.rangedMinBytes = rangedMinBytes;
    }

    // ------------------------------------------------------------------ write

    @Override
    public byte[] encode(VectorSchemaRoot leaf, DictionaryProvider dictionaries) {
        BufferAllocator allocator = leaf.getFieldVectors().getFirst().getAllocator();
        List<Field> fields = new ArrayList<>();
        for (Field f : leaf.getSchema().getFields()) {
            fields.add(storageField(f, dictionaries));
        }
        Schema storage = new Schema(fields);
        List<ByteBuffer> parts = new ArrayList<>();
        try (VectorSchemaRoot values = VectorSchemaRoot.create(storage, allocator)) {
            int rows = leaf.getRowCount();
            for (int i = 0; i < fields.size(); i++) {
                materialize(leaf.getVector(i), values.getVector(i), rows, dictionaries);
            }
            values.setRowCount(rows);
            FileEncoder encoder = new FileEncoder(storage, options);
            if (rows > 0) {
                parts.addAll(encoder.write(values));
            }
            parts.addAll(encoder.finish());
        }
        int size = 0;
        for (ByteBuffer b : parts) {
            size = Math.addExact(size, b.remaining());
        }
        byte[] out = new byte[size];
        int at = 0;
        for (ByteBuffer b : parts) {
            int n = b.remaining();
            b.get(out, at, n);
            at += n;
        }
        return out;
    }

    /** A dictionary field becomes a field of its value type that still carries the encoding. */
    private static Field storageField(Field f, DictionaryProvider dictionaries) {
        DictionaryEncoding enc = f.getDictionary();
        if (enc != null) {
            Dictionary d = dictionaries.lookup(enc.getId());
            if (d == null) {
                throw new IllegalArgumentException("no dictionary " + enc.getId() + " for " + f.getName());
            }
            return new Field(f.getName(), new FieldType(f.isNullable(), d.getVectorType(), enc, f.getMetadata()), null);
        }
        List<Field> kids = new ArrayList<>();
        for (Field c : f.getChildren()) {
            kids.add(storageField(c, dictionaries));
        }
        return new Field(f.getName(), new FieldType(f.isNullable(), f.getType(), null, f.getMetadata()), kids);
    }

    private static void materialize(FieldVector src, FieldVector dst, int n, DictionaryProvider dictionaries) {
        DictionaryEncoding enc = src.getField().getDictionary();
        if (enc != null) {
            IntVector keys = (IntVector) src;
            VarBinaryVector dict = (VarBinaryVector) dictionaries.lookup(enc.getId()).getVector();
            VarBinaryVector out = (VarBinaryVector) dst;
            out.allocateNew(n);
            for (int i = 0; i < n; i++) {
                if (keys.isNull(i)) {
                    out.setNull(i);
                    continue;
                }
                int k = keys.get(i);
                if (k < 0 || k >= dict.getValueCount()) {
                    throw new IllegalArgumentException("dictionary key " + k + " out of bounds [0, "
                            + dict.getValueCount() + ") in " + src.getName());
                }
                if (dict.isNull(k)) {
                    out.setNull(i);
                } else {
                    out.setSafe(i, dict.get(k));
                }
            }
            out.setValueCount(n);
            return;
        }
        copyStructure(src, dst, n, (s, d, count) -> materialize(s, d, count, dictionaries));
    }

    // ------------------------------------------------------------------ read

    @Override
    public Mono<Decoded> decode(byte[] bytes, BufferAllocator allocator) {
        return Mono.usingWhen(LanceFileReader.open(new MemorySource("leaf", bytes)), reader -> {
            long rows = reader.numRows();
            if (rows > Integer.MAX_VALUE) {
                return Mono.error(new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf has " + rows + " rows"));
            }
            Mono<VectorSchemaRoot> batch = rows == 0
                    ? Mono.fromCallable(() -> VectorSchemaRoot.create(reader.schema(), allocator))
                    : reader.scan(LanceFileReader.ScanOptions.all((int) rows), allocator).collectList()
                            .doOnDiscard(VectorSchemaRoot.class, VectorSchemaRoot::close).map(l -> {
                        if (l.size() != 1) {
                            l.forEach(VectorSchemaRoot::close);
                            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "leaf decoded in " + l.size()
                                    + " batches");
                        }
                        return l.getFirst();
                    });
            Schema fileSchema = reader.schema();
            return batch.map(values -> {
                try (values) {
                    return encodeDictionaries(fileSchema, values, allocator);
                }
            });
        }, reader -> Mono.fromRunnable(reader::close)).onErrorMap(e -> !(e instanceof CorruptSnapshotException)
                && !(e instanceof Error), e -> new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING,
                "leaf is not a readable Lance file: " + e.getMessage(), e));
    }

    @Override
    public boolean readsRanges(long objectSize) {
        return objectSize >= rangedMinBytes;
    }

    /**
     * Opens the file (one read of its tail: footer, column metadata and page tables), reads the ids
     * of the rows that can hold the wanted ids, then takes the rows found from every column; each
     * take fetches only the pages holding its rows. Ids strictly increase inside the leaf's range
     * {@code [lo, hi)}, so id {@code x} can only be at a row in
     * {@code [rows - (hi - x), x - lo]}: a single row when the leaf's ids are dense.
     */
    @Override
    public Mono<Decoded> decodeRows(io.javelin.encoding.io.RandomAccessSource source, java.util.SortedSet<Long> ids,
            long lo, long hi, long expectedRows, BufferAllocator allocator) {
        return Mono.usingWhen(LanceFileReader.open(source), reader -> {
            long rows = reader.numRows();
            if (rows != expectedRows || rows <= 0 || rows > Integer.MAX_VALUE) {
                return Mono.error(new CorruptSnapshotException(Rule.R24_LEAF_SUMMARY, source.name() + " has " + rows
                        + " rows, num_keys " + expectedRows));
            }
            Schema fileSchema = reader.schema();
            long[] candidates = candidateRows(ids, lo, hi, rows);
            Mono<long[]> found = candidates.length == 0 ? Mono.just(new long[0])
                    : reader.take(candidates, List.of("id"), allocator).map(batch -> {
                        try (batch) {
                            return rowsOf(batch, candidates, ids, source.name());
                        }
                    });
            return found.flatMap(indices -> {
                Mono<VectorSchemaRoot> values = indices.length == 0
                        ? Mono.fromCallable(() -> VectorSchemaRoot.create(fileSchema, allocator))
                        : reader.take(indices, null, allocator);
                return values.map(v -> {
                    try (v) {
                        return encodeDictionaries(fileSchema, v, allocator);
                    }
                });
            });
        }, reader -> Mono.fromRunnable(reader::close)).onErrorMap(e -> !(e instanceof CorruptSnapshotException)
                && !(e instanceof Error), e -> new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING,
                "leaf is not a readable Lance file: " + e.getMessage(), e));
    }

    /** The sorted, distinct rows that may hold one of {@code ids} in a leaf of {@code rows} strictly increasing ids in [lo, hi). */
    static long[] candidateRows(java.util.SortedSet<Long> ids, long lo, long hi, long rows) {
        java.util.TreeSet<Long> out = new java.util.TreeSet<>();
        for (long id : ids) {
            if (id < lo || id >= hi) {
                continue;
            }
            long first = Math.max(0, rows - (hi - id));
            long last = Math.min(rows - 1, id - lo);
            for (long r = first; r <= last; r++) {
                out.add(r);
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** Rows (among {@code candidates}, whose ids {@code batch} holds) that carry a wanted id. */
    private static long[] rowsOf(VectorSchemaRoot batch, long[] candidates, java.util.SortedSet<Long> ids, String name) {
        FieldVector v = batch.getVector(0);
        int n = batch.getRowCount();
        if (n != candidates.length) {
            throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, name + " returned " + n + " ids for "
                    + candidates.length + " rows");
        }
        long[] out = new long[n];
        int k = 0;
        long previous = -1;
        for (int i = 0; i < n; i++) {
            if (v.isNull(i)) {
                throw new CorruptSnapshotException(Rule.R16_LEAF_IDS, name + " has a null id at row " + candidates[i]);
            }
            long id = ((Number) v.getObject(i)).longValue();
            if (id <= previous || id < 0) {
                throw new CorruptSnapshotException(Rule.R16_LEAF_IDS, name + " ids not strictly increasing at row "
                        + candidates[i]);
            }
            previous = id;
            if (ids.contains(id)) {
                out[k++] = candidates[i];
            }
        }
        return java.util.Arrays.copyOf(out, k);
    }

    /** Re-encodes the mapping columns; field names and nullability come from the file schema. */
    private static Decoded encodeDictionaries(Schema fileSchema, VectorSchemaRoot values, BufferAllocator allocator) {
        DictionaryProvider.MapDictionaryProvider dicts = new DictionaryProvider.MapDictionaryProvider();
        long[] nextId = {0};
        List<Field> fields = new ArrayList<>();
        for (Field f : fileSchema.getFields()) {
            fields.add(leafField(f, nextId));
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), allocator);
        try {
            int rows = values.getRowCount();
            for (int i = 0; i < fields.size(); i++) {
                encode(values.getVector(i), root.getVector(i), rows, dicts, allocator);
            }
            root.setRowCount(rows);
        } catch (RuntimeException e) {
            new LeafArrow.Batch(root, dicts).close();
            throw e;
        }
        LeafArrow.Batch batch = new LeafArrow.Batch(root, dicts);
        return new Decoded() {
            @Override
            public VectorSchemaRoot root() {
                return root;
            }

            @Override
            public DictionaryProvider dictionaries() {
                return dicts;
            }

            @Override
            public void close() {
                batch.close();
            }
        };
    }

    /** The in-memory (index) form of a file field: a dictionary field becomes its index type. */
    private static Field leafField(Field f, long[] nextId) {
        DictionaryEncoding enc = f.getDictionary();
        if (enc != null) {
            DictionaryEncoding local = new DictionaryEncoding(nextId[0]++, enc.isOrdered(), enc.getIndexType());
            return new Field(f.getName(), new FieldType(f.isNullable(), enc.getIndexType(), local, f.getMetadata()), null);
        }
        List<Field> kids = new ArrayList<>();
        for (Field c : f.getChildren()) {
            kids.add(leafField(c, nextId));
        }
        return new Field(f.getName(), new FieldType(f.isNullable(), f.getType(), null, f.getMetadata()), kids);
    }

    private static void encode(FieldVector src, FieldVector dst, int n, DictionaryProvider.MapDictionaryProvider dicts,
            BufferAllocator allocator) {
        DictionaryEncoding enc = dst.getField().getDictionary();
        if (enc != null) {
            if (!(src instanceof VarBinaryVector values) || !(dst instanceof IntVector keys)
                    || !enc.getIndexType().equals(new ArrowType.Int(32, true))) {
                throw new CorruptSnapshotException(Rule.R15_LEAF_SCHEMA, "dictionary column " + src.getName()
                        + " is not dictionary<int32, binary>");
            }
            Map<ByteBuffer, Integer> seen = new HashMap<>();
            List<byte[]> distinct = new ArrayList<>();
            keys.allocateNew(n);
            for (int i = 0; i < n; i++) {
                if (values.isNull(i)) {
                    keys.setNull(i);
                    continue;
                }
                byte[] v = values.get(i);
                keys.setSafe(i, seen.computeIfAbsent(ByteBuffer.wrap(v), k -> {
                    distinct.add(v);
                    return distinct.size() - 1;
                }));
            }
            keys.setValueCount(n);
            VarBinaryVector d = new VarBinaryVector("dict" + enc.getId(), FieldType.notNullable(ArrowType.Binary.INSTANCE),
                    allocator);
            d.allocateNew(distinct.size());
            for (int i = 0; i < distinct.size(); i++) {
                d.setSafe(i, distinct.get(i));
            }
            d.setValueCount(distinct.size());
            dicts.put(new Dictionary(d, enc));
            return;
        }
        copyStructure(src, dst, n, (s, d, count) -> encode(s, d, count, dicts, allocator));
    }

    // ------------------------------------------------------------------ shared structure copy

    private interface ChildCopy {
        void copy(FieldVector src, FieldVector dst, int n);
    }

    /**
     * Copies validity and offsets of lists and structs (recursing through {@code child}) and leaf
     * vectors of equal type as they are.
     */
    private static void copyStructure(FieldVector src, FieldVector dst, int n, ChildCopy child) {
        if (src instanceof ListVector s && dst instanceof ListVector d) {
            d.allocateNew();
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    d.setNull(i);
                } else {
                    d.startNewValue(i);
                    d.endValue(i, s.getElementEndIndex(i) - s.getElementStartIndex(i));
                }
            }
            int items = n == 0 ? 0 : s.getElementEndIndex(n - 1);
            if (n > 0 && s.getElementStartIndex(0) != 0) {
                throw new CorruptSnapshotException(Rule.R08_OBJECT_ENCODING, "list " + s.getName()
                        + " does not start at offset 0");
            }
            child.copy(s.getDataVector(), d.getDataVector(), items);
            d.setValueCount(n);
            return;
        }
        if (src instanceof StructVector s && dst instanceof StructVector d) {
            List<FieldVector> sk = s.getChildrenFromFields();
            List<FieldVector> dk = d.getChildrenFromFields();
            if (sk.size() != dk.size()) {
                throw new CorruptSnapshotException(Rule.R15_LEAF_SCHEMA, "struct " + s.getName() + " changed shape");
            }
            for (int c = 0; c < sk.size(); c++) {
                child.copy(sk.get(c), dk.get(c), n);
            }
            for (int i = 0; i < n; i++) {
                if (s.isNull(i)) {
                    d.setNull(i);
                } else {
                    d.setIndexDefined(i);
                }
            }
            d.setValueCount(n);
            return;
        }
        if (!src.getField().getType().equals(dst.getField().getType())) {
            throw new CorruptSnapshotException(Rule.R15_LEAF_SCHEMA, "column " + src.getName() + " has type "
                    + src.getField().getType() + ", expected " + dst.getField().getType());
        }
        if (src.getValueCount() == n) {
            src.makeTransferPair(dst).transfer(); // zero-copy: the buffers change owner
            return;
        }
        dst.allocateNew();
        for (int i = 0; i < n; i++) {
            dst.copyFromSafe(i, i, src);
        }
        dst.setValueCount(n);
    }
}
