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

    private FragmentSource(FragmentInfo fragment, Map<String, Integer> fileOf, Map<Integer, LanceFileReader> readers) {
        this.fragment = fragment;
        this.fileOf = fileOf;
        this.readers = readers;
    }

    static Mono<FragmentSource> open(Dataset ds, FragmentInfo f, List<String> columns, io.javelin.objectstore.io.PageIoScheduler io) {
        return Mono.defer(() -> {
            Map<String, Integer> fileOf = new LinkedHashMap<>();
            List<DataFile> files = f.fragment().getFilesList();
            for (String c : columns) {
                LanceField lf = ds.lanceSchema().field(c);
                if (lf == null) {
                    return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No column '" + c + "'"));
                }
                int found = -1;
                for (int i = 0; i < files.size() && found < 0; i++) {
                    if (files.get(i).getFieldsList().contains(lf.id())) {
                        found = i;
                    }
                }
                if (found < 0) {
                    return Mono.error(new DatasetException(ds.uri(), ds.version(), "Column '" + c + "' has no data file in fragment "
                            + f.id() + " (all-null columns from schema evolution are not supported yet)"));
                }
                fileOf.put(c, found);
            }
            return Flux.fromIterable(new java.util.LinkedHashSet<>(fileOf.values()))
                    .concatMap(i -> ds.openFile(files.get(i), io).map(r -> Map.entry(i, r)))
                    .collectMap(Map.Entry::getKey, Map.Entry::getValue)
                    .map(readers -> new FragmentSource(f, fileOf, readers));
        });
    }

    FragmentInfo fragment() {
        return fragment;
    }

    private Map<Integer, List<String>> byFile(List<String> columns) {
        Map<Integer, List<String>> out = new LinkedHashMap<>();
        for (String c : columns) {
            out.computeIfAbsent(fileOf.get(c), k -> new ArrayList<>()).add(c);
        }
        return out;
    }

    /** Physical rows {@code [start, end)} in batches of {@code batchSize}; columns in the order given. */
    Flux<VectorSchemaRoot> scan(List<String> columns, long start, long end, int batchSize, BufferAllocator allocator) {
        long rows = Math.min(end, fragment.physicalRows());
        if (columns.isEmpty()) {
            long n = (rows - start + batchSize - 1) / batchSize;
            return Flux.range(0, (int) Math.max(0, n)).map(b -> {
                long s = start + (long) b * batchSize;
                return Batches.root(List.of(), (int) (Math.min(rows, s + batchSize) - s));
            });
        }
        Map<Integer, List<String>> groups = byFile(columns);
        List<Flux<VectorSchemaRoot>> scans = new ArrayList<>();
        for (var g : groups.entrySet()) {
            var opts = LanceFileReader.ScanOptions.all(batchSize).withColumns(g.getValue()).withRange(start, rows);
            scans.add(readers.get(g.getKey()).scan(opts, allocator));
        }
        if (scans.size() == 1) {
            return scans.get(0);
        }
        return Flux.zip(scans, 1, parts -> merge(parts, columns, allocator));
    }

    /** Rows at physical {@code offsets} (any order, repeats allowed) as one batch. */
    Mono<VectorSchemaRoot> take(long[] offsets, List<String> columns, BufferAllocator allocator) {
        if (columns.isEmpty()) {
            return Mono.just(Batches.root(List.of(), offsets.length));
        }
        Map<Integer, List<String>> groups = byFile(columns);
        List<Mono<VectorSchemaRoot>> takes = new ArrayList<>();
        for (var g : groups.entrySet()) {
            takes.add(readers.get(g.getKey()).take(offsets, g.getValue(), allocator));
        }
        if (takes.size() == 1) {
            return takes.get(0);
        }
        return Flux.concat(takes).collectList().map(parts -> merge(parts.toArray(), columns, allocator));
    }

    private static VectorSchemaRoot merge(Object[] parts, List<String> columns, BufferAllocator allocator) {
        Map<String, FieldVector> byName = new LinkedHashMap<>();
        int rows = 0;
        for (Object p : parts) {
            VectorSchemaRoot r = (VectorSchemaRoot) p;
            rows = r.getRowCount();
            for (FieldVector v : r.getFieldVectors()) {
                byName.put(v.getField().getName(), v);
            }
        }
        List<FieldVector> out = new ArrayList<>();
        for (String c : columns) {
            out.add(byName.get(c));
        }
        return Batches.root(out, rows);
    }
}
