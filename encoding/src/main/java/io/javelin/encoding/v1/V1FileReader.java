package io.javelin.encoding.v1;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.encoding.CorruptFileException;
import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.file.LanceField;
import io.javelin.encoding.file.LanceFileMetadata;
import io.javelin.encoding.file.LanceFileVersion;
import io.javelin.encoding.file.LanceSchemas;
import io.javelin.encoding.io.CancelSafe;
import io.javelin.encoding.io.RandomAccessSource;
import io.javelin.encoding.pb.file.EmbeddedManifestSchema;
import io.javelin.encoding.pb.file.FileDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Reads a legacy (format 0.1 / 0.2) Lance data file: footer → {@code lance.file.Metadata} (batch row
 * boundaries, page table position) → page table of (position, length) per field and batch → pages decoded
 * per field type (Plain, VarBinary, lists, structs). Rows are copied into Arrow vectors allocated from the
 * caller's allocator; each batch owns its memory.
 */
public final class V1FileReader {

    /** Gap (rows) below which the rows of a take are read as one range of their batch. */
    static final int TAKE_RUN_GAP = 256;

    private final V1Pages io;
    private final V1Layout layout;
    private final LanceFileMetadata metadata;
    private final V1Footer footer;

    private V1FileReader(V1Pages io, V1Layout layout, LanceFileMetadata metadata, V1Footer footer) {
        this.io = io;
        this.layout = layout;
        this.metadata = metadata;
        this.footer = footer;
    }

    /**
     * Opens a legacy file whose last {@code tail} bytes are already read. {@code schema} is the dataset's
     * (null: the file's embedded manifest, for files written on their own).
     */
    public static Mono<V1FileReader> open(RandomAccessSource source, long size, MemorySegment tail, V1Schema schema) {
        String name = source.name();
        return Mono.defer(() -> {
            V1Footer footer = V1Footer.parse(name, tail, size);
            long tailStart = size - tail.byteSize();
            V1Pages raw = new V1Pages(name, source, size, null, Map.of());
            long metaEnd = size - V1Footer.LENGTH;
            return framed(raw, tail, tailStart, footer.metadataPosition(), metaEnd, "metadata").flatMap(meta -> {
                V1Layout layout = V1Layout.parse(name, footer.metadataPosition(), meta, size);
                Mono<SchemaParts> parts = schema != null
                        ? Mono.just(new SchemaParts(schema.fileFields(), schema.metadata(), schema.minPageId(), schema.maxPageId(), null))
                        : embedded(raw, tail, tailStart, layout, metaEnd);
                return parts.flatMap(p -> {
                    long tableBytes = V1PageTable.size(p.minId(), p.maxId(), layout.numBatches());
                    if (tableBytes < 0 || layout.pageTablePosition() + tableBytes > metaEnd) {
                        return Mono.error(new CorruptFileException(name, layout.pageTablePosition(), "Legacy page table of fields "
                                + p.minId() + ".." + p.maxId() + " x " + layout.numBatches() + " batches at "
                                + layout.pageTablePosition() + " does not fit in the file of " + size + " bytes"));
                    }
                    return slice(raw, tail, tailStart, layout.pageTablePosition(), tableBytes).flatMap(table -> {
                        V1PageTable pt = V1PageTable.parse(name, p.minId(), p.maxId(), layout.numBatches(), table, size);
                        List<LanceField> fields = LanceSchemas.fieldTree(name, p.fields(), LanceFileVersion.V2_0);
                        Schema arrow = LanceSchemas.arrowSchema(fields, p.metadata());
                        LanceFileMetadata md = new LanceFileMetadata(name, size, null, new long[0], new long[0], new long[0],
                                List.of(), FileDescriptor.newBuilder().setLength(layout.numRows()).build(), fields, arrow);
                        return dictionaries(raw, tail, tailStart, layout, metaEnd, p)
                                .map(dicts -> new V1FileReader(new V1Pages(name, source, size, pt, dicts), layout, md, footer));
                    });
                });
            });
        });
    }

    /** {@code dictionaries}: where the embedded manifest keeps each dictionary field's values (null: not read). */
    private record SchemaParts(List<io.javelin.encoding.pb.file.Field> fields, Map<String, String> metadata, int minId, int maxId,
                               Map<Integer, io.javelin.encoding.pb.file.Dictionary> dictionaries) {
    }

    /**
     * The values of the dictionary fields, read at open from the data file's embedded manifest (a dataset's
     * manifest file holds the same values; upstream reads them there). Fields whose values are not found
     * fail when they are read.
     */
    private static Mono<Map<Integer, Piece.Binary>> dictionaries(V1Pages raw, MemorySegment tail, long tailStart, V1Layout layout,
                                                                 long metaEnd, SchemaParts p) {
        List<io.javelin.encoding.pb.file.Field> dict = p.fields().stream().filter(f -> f.getLogicalType().startsWith("dict:")).toList();
        if (dict.isEmpty()) {
            return Mono.just(Map.of());
        }
        Mono<Map<Integer, io.javelin.encoding.pb.file.Dictionary>> where = p.dictionaries() != null ? Mono.just(p.dictionaries())
                : layout.manifestPosition() == 0 ? Mono.just(Map.of())
                : embedded(raw, tail, tailStart, layout, metaEnd).map(SchemaParts::dictionaries);
        return where.flatMap(at -> Flux.fromIterable(dict).filter(f -> at.containsKey(f.getId()))
                .concatMap(f -> DictionaryDecoder.values(raw, new org.apache.arrow.vector.types.pojo.Field(f.getName(),
                                org.apache.arrow.vector.types.pojo.FieldType.nullable(LanceSchemas.arrowType(raw.resource(),
                                        f.getLogicalType(), f.getName())), null), at.get(f.getId()))
                        .map(v -> Map.entry(f.getId(), v)))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    /** The schema of a file written on its own: its embedded manifest; page table ids from 0. */
    private static Mono<SchemaParts> embedded(V1Pages raw, MemorySegment tail, long tailStart, V1Layout layout, long metaEnd) {
        if (layout.manifestPosition() == 0) {
            return Mono.error(new UnsupportedEncodingException(raw.resource(), 0, "Legacy data file without an embedded "
                    + "schema: it is read through its dataset, whose manifest holds the schema"));
        }
        return framed(raw, tail, tailStart, layout.manifestPosition(), metaEnd, "manifest").map(bytes -> {
            EmbeddedManifestSchema m;
            try {
                m = EmbeddedManifestSchema.parseFrom(bytes);
            } catch (InvalidProtocolBufferException e) {
                throw new CorruptFileException(raw.resource(), layout.manifestPosition(), "Bad embedded manifest: " + e.getMessage(), e);
            }
            Map<String, String> md = new LinkedHashMap<>();
            m.getSchemaMetadataMap().forEach((k, v) -> md.put(k, v.toString(StandardCharsets.UTF_8)));
            int max = 0;
            Map<Integer, io.javelin.encoding.pb.file.Dictionary> dicts = new java.util.HashMap<>();
            for (var f : m.getFieldsList()) {
                max = Math.max(max, f.getId());
                if (f.hasDictionary()) {
                    dicts.put(f.getId(), f.getDictionary());
                }
            }
            return new SchemaParts(m.getFieldsList(), md, 0, max, dicts);
        });
    }

    /** A u32-length-prefixed protobuf at {@code at} that must end by {@code limit}. */
    private static Mono<byte[]> framed(V1Pages raw, MemorySegment tail, long tailStart, long at, long limit, String what) {
        return slice(raw, tail, tailStart, at, 4).flatMap(len -> {
            long n = Integer.toUnsignedLong(ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
            if (at + 4 + n > limit) {
                return Mono.error(new CorruptFileException(raw.resource(), at, "Legacy " + what + " of " + n + " bytes at " + at
                        + " runs past " + limit));
            }
            return slice(raw, tail, tailStart, at + 4, n);
        });
    }

    /** Bytes {@code [at, at + n)}, from the tail already read when it holds them. */
    private static Mono<byte[]> slice(V1Pages raw, MemorySegment tail, long tailStart, long at, long n) {
        if (at >= tailStart && at + n <= tailStart + tail.byteSize()) {
            return Mono.just(tail.asSlice(at - tailStart, n).toArray(ValueLayout.JAVA_BYTE));
        }
        return raw.bytes(at, n);
    }

    public LanceFileMetadata metadata() {
        return metadata;
    }

    /** The footer's version, e.g. "0.1". */
    public String version() {
        return footer.label();
    }

    public long numRows() {
        return layout.numRows();
    }

    public int numBatches() {
        return layout.numBatches();
    }

    /** A contiguous run of rows inside one batch: file rows {@code [start, start + (to - from))}. */
    private record Run(int batch, long from, long to, long start) {
    }

    /** The runs covering file rows {@code [start, end)}. */
    private List<Run> runs(long start, long end) {
        List<Run> out = new ArrayList<>();
        long row = start;
        while (row < end) {
            int b = layout.batchOf(row);
            long bs = layout.batchOffsets()[b];
            long be = Math.min(end, layout.batchOffsets()[b + 1]);
            out.add(new Run(b, row - bs, be - bs, row));
            row = be;
        }
        return out;
    }

    /** Rows {@code [start, end)} in batches of {@code batchSize}, fields in the order given. */
    public Flux<VectorSchemaRoot> scan(List<LanceField> fields, long start, long end, int batchSize, BufferAllocator allocator) {
        long s0 = Math.max(0, start);
        long e0 = Math.min(end, numRows());
        if (e0 <= s0) {
            return Flux.empty();
        }
        long batches = (e0 - s0 + batchSize - 1) / batchSize;
        return Flux.fromStream(() -> java.util.stream.LongStream.range(0, batches).boxed()).concatMap(b -> {
            long s = s0 + b * batchSize;
            long e = Math.min(e0, s + batchSize);
            List<Run> runs = runs(s, e);
            return read(fields, runs).flatMap(pieces -> assemble(fields, pieces, allocator, (int) (e - s), (v, f) -> {
                int at = 0;
                List<Piece> ps = pieces.get(f);
                for (Piece p : ps) {
                    new PieceAppender(io.resource()).append(v, at, p, 0, p.rows());
                    at += p.rows();
                }
            }));
        }, 1);
    }

    /** The rows at {@code indices} (any order, repeats allowed; each in [0, numRows)) as one batch. */
    public Mono<VectorSchemaRoot> take(List<LanceField> fields, long[] indices, BufferAllocator allocator) {
        return Mono.defer(() -> {
            long[] sorted = Arrays.stream(indices).sorted().distinct().toArray();
            List<Run> runs = new ArrayList<>();
            for (int i = 0; i < sorted.length; ) {
                long first = sorted[i];
                int b = layout.batchOf(first);
                long bs = layout.batchOffsets()[b];
                long be = layout.batchOffsets()[b + 1];
                int j = i + 1;
                while (j < sorted.length && sorted[j] < be && sorted[j] - sorted[j - 1] <= TAKE_RUN_GAP) {
                    j++;
                }
                runs.add(new Run(b, first - bs, sorted[j - 1] + 1 - bs, first));
                i = j;
            }
            long[] runStarts = runs.stream().mapToLong(Run::start).toArray();
            return read(fields, runs).flatMap(pieces -> assemble(fields, pieces, allocator, indices.length, (v, f) -> {
                PieceAppender out = new PieceAppender(io.resource());
                List<Piece> ps = pieces.get(f);
                for (int k = 0; k < indices.length; k++) {
                    int r = Arrays.binarySearch(runStarts, indices[k]);
                    r = r >= 0 ? r : -r - 2;
                    out.append(v, k, ps.get(r), (int) (indices[k] - runStarts[r]), 1);
                }
            }));
        });
    }

    /** Per field (in order), one piece per run. */
    private Mono<List<List<Piece>>> read(List<LanceField> fields, List<Run> runs) {
        return Flux.fromIterable(fields)
                .flatMapSequential(f -> Flux.fromIterable(runs)
                        .concatMap(r -> V1Columns.read(io, f, r.batch(), r.from(), r.to()))
                        .collectList(), 4)
                .collectList()
                .onErrorMap(e -> e instanceof ArithmeticException || e instanceof IndexOutOfBoundsException
                        || e instanceof IllegalArgumentException || e instanceof NegativeArraySizeException,
                        e -> new CorruptFileException(io.resource(), -1, "Malformed legacy data: " + e, e));
    }

    private interface Fill {
        void fill(FieldVector v, int field);
    }

    private Mono<VectorSchemaRoot> assemble(List<LanceField> fields, List<List<Piece>> pieces, BufferAllocator allocator,
                                            int rows, Fill fill) {
        return CancelSafe.produceOn(Schedulers.parallel(), () -> {
            List<FieldVector> vectors = new ArrayList<>();
            try {
                for (int f = 0; f < fields.size(); f++) {
                    FieldVector v = fields.get(f).arrow().createVector(allocator);
                    vectors.add(v);
                    v.setInitialCapacity(rows);
                    v.allocateNew();
                    fill.fill(v, f);
                    v.setValueCount(rows);
                }
            } catch (RuntimeException e) {
                vectors.forEach(FieldVector::close);
                if (e instanceof CorruptFileException) {
                    throw e;
                }
                throw new CorruptFileException(io.resource(), -1, "Malformed legacy data: " + e, e);
            }
            return new VectorSchemaRoot(vectors.stream().map(FieldVector::getField).toList(), vectors, rows);
        });
    }
}
