package io.javelin.engine;

import io.javelin.encoding.file.LanceFileReader;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.schema.LanceField;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The data files of one fragment, opened for a set of top-level columns. Columns may live in different
 * files (data evolution); their batches are row-aligned and zipped. Physical rows: deletions are applied
 * by the caller.
 */
final class FragmentSource {

    private final FragmentInfo fragment;
    private final Map<String, Integer> fileOf;
    private final Map<Integer, LanceFileReader> readers;
    /** Dataset column → its top-level name inside its data file (differs after a rename). */
    private final Map<String, String> nameInFile;
    /** Dataset column → its dataset field; columns in no data file read as nulls (schema evolution). */
    private final Map<String, org.apache.arrow.vector.types.pojo.Field> datasetField;
    /** Dataset field id → field name inside the data file holding it (nested fields included). */
    private Map<Integer, String> fileNames = Map.of();
    private io.javelin.tx.schema.LanceSchema lance;
    private io.javelin.encoding.file.ReadAhead readAhead = io.javelin.encoding.file.ReadAhead.OFF;
    /** For blob payloads of scans that ask for them ({@link BlobHandling}). */
    private Dataset ds;

    private FragmentSource(FragmentInfo fragment, Map<String, Integer> fileOf, Map<Integer, LanceFileReader> readers,
                           Map<String, String> nameInFile, Map<String, org.apache.arrow.vector.types.pojo.Field> datasetField) {
        this.fragment = fragment;
        this.fileOf = fileOf;
        this.readers = readers;
        this.nameInFile = nameInFile;
        this.datasetField = datasetField;
    }

    /** The data files of the root come from the dataset's open-file cache (repeated scans and takes skip metadata reads). */
    static Mono<FragmentSource> open(Dataset ds, FragmentInfo f, List<String> columns, io.javelin.objectstore.io.PageIoScheduler io) {
        return Mono.defer(() -> {
            Map<String, Integer> fileOf = new LinkedHashMap<>();
            Map<String, Integer> idOf = new LinkedHashMap<>();
            Map<String, org.apache.arrow.vector.types.pojo.Field> datasetField = new LinkedHashMap<>();
            List<DataFile> files = f.fragment().getFilesList();
            for (String c : columns) {
                LanceField lf = ds.lanceSchema().field(c);
                if (lf == null) {
                    return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No column '" + c + "'"));
                }
                int found = -1;
                for (int i = 0; i < files.size() && found < 0; i++) {
                    if (ColumnLayout.holds(files.get(i).getFieldsList(), lf)) {
                        found = i;
                    }
                }
                datasetField.put(c, BlobV2.scanField(ds.schema().findField(c)));
                if (found < 0) {
                    continue; // added without backfill: all nulls in this fragment
                }
                fileOf.put(c, found);
                idOf.put(c, lf.id());
            }
            return Flux.fromIterable(new java.util.LinkedHashSet<>(fileOf.values()))
                    .flatMap(i -> ds.openFile(files.get(i), io) // a fragment's files open concurrently: one round trip on cloud stores
                            .map(r -> Map.entry(i, r)))
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                    .map(readers -> {
                        Map<String, String> nameInFile = new LinkedHashMap<>();
                        Map<Integer, String> fileNames = new java.util.HashMap<>();
                        fileOf.forEach((c, i) -> {
                            // a legacy file is read with the dataset's fields (dropped ones left out): its ids are
                            // the dataset's, never positions in DataFile.fields
                            LanceFileReader r = readers.get(i);
                            Map<Integer, String> names = ColumnLayout.fileNames(r.metadata().fields(),
                                    r.legacy() != null ? List.of() : files.get(i).getFieldsList());
                            nameInFile.put(c, names.getOrDefault(idOf.get(c), c));
                            fileNames.putAll(names);
                        });
                        FragmentSource fs = new FragmentSource(f, fileOf, readers, nameInFile, datasetField);
                        fs.fileNames = fileNames;
                        fs.lance = ds.lanceSchema();
                        fs.readAhead = ds.readAhead();
                        fs.ds = ds;
                        return fs;
                    });
        });
    }

    FragmentInfo fragment() {
        return fragment;
    }

    private Map<Integer, List<String>> byFile(List<String> columns) {
        Map<Integer, List<String>> out = new LinkedHashMap<>();
        for (String c : columns) {
            if (fileOf.containsKey(c)) {
                out.computeIfAbsent(fileOf.get(c), k -> new ArrayList<>()).add(c);
            }
        }
        return out;
    }

    /** Physical rows {@code [start, end)} in batches of {@code batchSize}; columns in the order given. */
    Flux<VectorSchemaRoot> scan(List<String> columns, long start, long end, int batchSize, BufferAllocator allocator) {
        return scan(columns, start, end, batchSize, allocator, null);
    }

    /**
     * As above, inside a scan whose batches {@code owner} keeps custody of (null: none). Per-file batches are
     * claimed from it before they are merged, and the merged batch is handed back to it.
     */
    Flux<VectorSchemaRoot> scan(List<String> columns, long start, long end, int batchSize, BufferAllocator allocator,
                                Scan.InFlight owner) {
        long rows = Math.min(end, fragment.physicalRows());
        if (columns.isEmpty()) {
            long n = (rows - start + batchSize - 1) / batchSize;
            return Flux.range(0, (int) Math.max(0, n)).map(b -> {
                long s = start + (long) b * batchSize;
                VectorSchemaRoot r = Batches.root(List.of(), (int) (Math.min(rows, s + batchSize) - s));
                if (owner != null) {
                    owner.adopt(r); // stages claim every batch from the owner, even one without buffers
                }
                return r;
            });
        }
        Map<Integer, List<String>> groups = byFile(columns);
        if (groups.isEmpty()) { // only all-null columns
            long n = (rows - start + batchSize - 1) / batchSize;
            return Flux.range(0, (int) Math.max(0, n)).map(b -> {
                long s = start + (long) b * batchSize;
                return merge(new Object[0], List.of(), columns, (int) (Math.min(rows, s + batchSize) - s), allocator, owner);
            });
        }
        List<Flux<VectorSchemaRoot>> scans = new ArrayList<>();
        for (var g : groups.entrySet()) {
            var opts = LanceFileReader.ScanOptions.all(batchSize).withColumns(inFile(g.getValue())).withRange(start, rows)
                    .withReadAhead(readAhead).withSharedBudget(owner == null ? null : owner.readAhead);
            scans.add(readers.get(g.getKey()).scan(opts, allocator));
        }
        List<List<String>> order = new ArrayList<>(groups.values());
        if (scans.size() == 1) {
            return blobs(scans.get(0).map(part -> merge(new Object[] {part}, order, columns, -1, allocator, owner)), columns,
                    start, null, owner);
        }
        return blobs(Flux.zip(scans, 1, parts -> merge(parts, order, columns, -1, allocator, owner)), columns, start, null, owner);
    }

    private boolean hasBlobV2(List<String> columns) {
        return ds != null && columns.stream().anyMatch(c -> datasetField.get(c) != null && BlobV2.isDescriptor(datasetField.get(c)));
    }

    /** Blob v2 payloads for scans in {@link BlobHandling#ALL_BINARY} or {@link BlobHandling#LOGICAL} mode. */
    private Flux<VectorSchemaRoot> blobs(Flux<VectorSchemaRoot> in, List<String> columns, long start, long[] offsets,
                                         Scan.InFlight owner) {
        if (!hasBlobV2(columns)) {
            return in;
        }
        return Flux.deferContextual(ctx -> {
            BlobHandling mode = BlobMaterialize.mode(ctx);
            if (mode == BlobHandling.DESCRIPTORS) {
                return in;
            }
            java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong(start);
            return in.concatMap(b -> {
                long first = next.getAndAdd(b.getRowCount());
                long[] addrs = new long[b.getRowCount()];
                for (int i = 0; i < addrs.length; i++) {
                    addrs[i] = (fragment.id() << 32) | (offsets != null ? offsets[i] : first + i);
                }
                return BlobMaterialize.apply(ds, b, columns, addrs, mode, owner);
            }, 1);
        });
    }

    /** Rows at physical {@code offsets} (any order, repeats allowed) as one batch. */
    Mono<VectorSchemaRoot> take(long[] offsets, List<String> columns, BufferAllocator allocator) {
        return take(offsets, columns, allocator, null);
    }

    Mono<VectorSchemaRoot> take(long[] offsets, List<String> columns, BufferAllocator allocator, Scan.InFlight owner) {
        if (columns.isEmpty()) {
            return Mono.fromSupplier(() -> {
                VectorSchemaRoot r = Batches.root(List.of(), offsets.length);
                if (owner != null) {
                    owner.adopt(r);
                }
                return r;
            });
        }
        Map<Integer, List<String>> groups = byFile(columns);
        if (groups.isEmpty()) {
            return Mono.fromCallable(() -> merge(new Object[0], List.of(), columns, offsets.length, allocator, owner));
        }
        List<Mono<VectorSchemaRoot>> takes = new ArrayList<>();
        for (var g : groups.entrySet()) {
            takes.add(readers.get(g.getKey()).take(offsets, inFile(g.getValue()), allocator));
        }
        List<List<String>> order = new ArrayList<>(groups.values());
        // files of a fragment (data evolution) are read at the same time, results kept in order
        Mono<VectorSchemaRoot> taken = Flux.mergeSequential(takes).collectList()
                .map(parts -> merge(parts.toArray(), order, columns, -1, allocator, owner));
        return hasBlobV2(columns) ? blobs(taken.flux(), columns, 0, offsets, owner).next() : taken;
    }

    /** File-side names of dataset columns. */
    private List<String> inFile(List<String> columns) {
        return columns.stream().map(c -> nameInFile.getOrDefault(c, c)).toList();
    }

    /**
     * Zips per-file parts into one root in the order of {@code columns}: file columns relabelled to their
     * dataset names, missing columns filled with nulls ({@code rows} when there are no parts).
     */
    private VectorSchemaRoot merge(Object[] parts, List<List<String>> partColumns, List<String> columns, int rows,
                                   BufferAllocator allocator, Scan.InFlight owner) {
        if (owner != null) {
            boolean all = true;
            for (Object p : parts) {
                all &= owner.claim((VectorSchemaRoot) p);
            }
            if (!all) {
                // the scan ended while these were in flight: it closed some, close the rest
                for (Object p : parts) {
                    ((VectorSchemaRoot) p).close();
                }
                return Batches.root(List.of(), 0);
            }
        }
        Map<String, FieldVector> byName = new LinkedHashMap<>();
        for (int k = 0; k < parts.length; k++) {
            VectorSchemaRoot r = (VectorSchemaRoot) parts[k];
            rows = r.getRowCount();
            List<FieldVector> vs = r.getFieldVectors();
            for (int j = 0; j < vs.size(); j++) {
                byName.put(partColumns.get(k).get(j), vs.get(j));
            }
        }
        List<FieldVector> out = new ArrayList<>();
        try {
            for (String c : columns) {
                org.apache.arrow.vector.types.pojo.Field target = datasetField.get(c);
                if (!fileOf.containsKey(c)) {
                    out.add(ColumnLayout.nulls(target, Math.max(rows, 0), allocator));
                    continue;
                }
                FieldVector v = byName.remove(c);
                out.add(target == null || BlobV2.isDescriptor(target) ? v : ColumnLayout.adapt(v, target, lance == null ? null : lance.field(c), fileNames, allocator));
            }
        } catch (RuntimeException e) {
            out.forEach(FieldVector::close);
            byName.values().forEach(FieldVector::close);
            throw e;
        }
        byName.values().forEach(FieldVector::close);
        VectorSchemaRoot merged = Batches.root(out, Math.max(rows, 0));
        if (owner != null) {
            owner.adopt(merged);
        }
        return merged;
    }
}
