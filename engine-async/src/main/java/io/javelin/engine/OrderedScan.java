package io.javelin.engine;

import io.javelin.engine.filter.FilterParseException;
import io.javelin.engine.filter.SortKeys;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A scan in ORDER BY order: {@code ds.scanner().filter(f).limit(10).orderBy("score desc", "id")}. With a
 * limit it is a streaming top-k: at most offset + limit rows (plus the batch being merged) are kept, whatever
 * the table size; without one every matching row is sorted. Ties keep scan order. Output batches are the
 * subscriber's to close; cancel or error frees everything held.
 */
public final class OrderedScan {

    private final Scanner scanner;
    private final List<String> clauses;

    OrderedScan(Scanner scanner, List<String> clauses) {
        this.scanner = scanner;
        this.clauses = List.copyOf(clauses);
    }

    /** At most {@code n} rows (after the scanner's offset); negative = all. */
    public OrderedScan limit(long n) {
        return new OrderedScan(scanner.limit(n), clauses);
    }

    public Schema outputSchema() {
        return scanner.outputSchema();
    }

    public Flux<VectorSchemaRoot> scan(BufferAllocator allocator) {
        return Flux.defer(() -> {
            SortKeys keys;
            try {
                keys = SortKeys.compile(clauses, scanner.dataset.schema());
            } catch (FilterParseException e) {
                throw new InvalidScanException(scanner.dataset.uri(), scanner.dataset.version(), "Invalid order by: " + e.getMessage(), e);
            }
            Scanner input = scanner.limit(-1).offset(0);
            Set<String> drop = new LinkedHashSet<>();
            if (scanner.columns != null) {
                List<String> cols = new ArrayList<>(scanner.columns);
                for (String c : keys.referencedColumns()) {
                    if (!cols.contains(c)) {
                        cols.add(c);
                        drop.add(c);
                    }
                }
                input = input.columns(cols);
            }
            long keep = scanner.limit < 0 ? -1 : scanner.offset + scanner.limit;
            Scanner source = input;
            int batch = scanner.batchSize;
            // eager cleanup: what the top-k holds is freed before completion or an error reaches the subscriber
            return Flux.using(() -> new TopK(keys, keep, allocator), top -> source.scan(allocator)
                    .handle((VectorSchemaRoot b, reactor.core.publisher.SynchronousSink<VectorSchemaRoot> sink) -> top.add(b))
                    .then(Mono.fromCallable(() -> top.finish(scanner.offset)))
                    .flatMapMany(result -> Flux.range(0, (result.getRowCount() + batch - 1) / batch)
                            .map(k -> top.slice(result, k * batch, Math.min(result.getRowCount(), (k + 1) * batch), drop))),
                    TopK::close, true);
        });
    }

    /** The bounded state: the best rows so far, sorted, in one batch. */
    static final class TopK {
        private final SortKeys keys;
        private final long keep;
        private final BufferAllocator allocator;
        private final List<VectorSchemaRoot> all = new ArrayList<>(); // unbounded sort only
        private VectorSchemaRoot kept;
        private VectorSchemaRoot result;
        private boolean closed;

        TopK(SortKeys keys, long keep, BufferAllocator allocator) {
            this.keys = keys;
            this.keep = keep;
            this.allocator = allocator;
        }

        synchronized void add(VectorSchemaRoot b) {
            if (closed || keep == 0) {
                b.close();
                return;
            }
            if (keep < 0) {
                all.add(b);
                return;
            }
            try (b) {
                List<VectorSchemaRoot> sources = kept == null ? List.of(b) : List.of(kept, b);
                VectorSchemaRoot next = sorted(sources, keep);
                if (kept != null) {
                    kept.close();
                }
                kept = next;
            }
        }

        /** The kept rows after {@code offset}, sorted; owned by this object until {@link #close}. */
        synchronized VectorSchemaRoot finish(long offset) {
            VectorSchemaRoot sortedAll;
            if (keep < 0) {
                sortedAll = all.isEmpty() ? null : sorted(all, Long.MAX_VALUE);
                all.forEach(VectorSchemaRoot::close);
                all.clear();
            } else {
                sortedAll = kept;
                kept = null;
            }
            if (sortedAll == null) {
                result = VectorSchemaRoot.create(new Schema(List.of()), allocator);
                return result;
            }
            int from = (int) Math.min(offset, sortedAll.getRowCount());
            result = from == 0 ? sortedAll : copy(List.of(sortedAll), new int[sortedAll.getRowCount() - from], rangeFrom(from, sortedAll.getRowCount()));
            if (result != sortedAll) {
                sortedAll.close();
            }
            return result;
        }

        private static int[] rangeFrom(int from, int to) {
            int[] r = new int[to - from];
            for (int i = 0; i < r.length; i++) {
                r[i] = from + i;
            }
            return r;
        }

        VectorSchemaRoot slice(VectorSchemaRoot from, int start, int end, Set<String> drop) {
            VectorSchemaRoot piece = copy(List.of(from), new int[end - start], rangeFrom(start, end));
            if (drop.isEmpty()) {
                return piece;
            }
            List<FieldVector> keepVectors = new ArrayList<>();
            List<Field> fields = new ArrayList<>();
            for (FieldVector v : piece.getFieldVectors()) {
                if (drop.contains(v.getField().getName())) {
                    v.close();
                } else {
                    keepVectors.add(v);
                    fields.add(v.getField());
                }
            }
            return new VectorSchemaRoot(fields, keepVectors, piece.getRowCount());
        }

        synchronized void close() {
            closed = true;
            if (kept != null) {
                kept.close();
                kept = null;
            }
            all.forEach(VectorSchemaRoot::close);
            all.clear();
            if (result != null) {
                result.close();
                result = null;
            }
        }

        /** The first {@code limit} rows of {@code sources} in key order (stable: earlier sources, then rows, first). */
        private VectorSchemaRoot sorted(List<VectorSchemaRoot> sources, long limit) {
            int n = 0;
            for (VectorSchemaRoot s : sources) {
                n += s.getRowCount();
            }
            SortKeys.Evaluated[] ev = new SortKeys.Evaluated[sources.size()];
            for (int k = 0; k < ev.length; k++) {
                ev[k] = keys.of(sources.get(k));
            }
            int[] src = new int[n];
            int[] row = new int[n];
            int[] order = new int[n];
            int at = 0;
            for (int k = 0; k < sources.size(); k++) {
                for (int r = 0; r < sources.get(k).getRowCount(); r++) {
                    src[at] = k;
                    row[at] = r;
                    order[at] = at;
                    at++;
                }
            }
            mergeSort(order, new int[n], 0, n, (x, y) -> keys.compare(ev[src[x]], row[x], ev[src[y]], row[y]));
            int m = (int) Math.min(limit, n);
            int[] pickSrc = new int[m];
            int[] pickRow = new int[m];
            for (int i = 0; i < m; i++) {
                pickSrc[i] = src[order[i]];
                pickRow[i] = row[order[i]];
            }
            return copy(sources, pickSrc, pickRow);
        }

        @FunctionalInterface
        interface IntOrder {
            int compare(int a, int b);
        }

        /** Stable merge sort of int indexes. */
        static void mergeSort(int[] a, int[] tmp, int from, int to, IntOrder c) {
            if (to - from < 2) {
                return;
            }
            int mid = (from + to) >>> 1;
            mergeSort(a, tmp, from, mid, c);
            mergeSort(a, tmp, mid, to, c);
            if (c.compare(a[mid - 1], a[mid]) <= 0) {
                return;
            }
            System.arraycopy(a, from, tmp, from, to - from);
            int i = from;
            int j = mid;
            for (int k = from; k < to; k++) {
                if (j >= to || i < mid && c.compare(tmp[i], tmp[j]) <= 0) {
                    a[k] = tmp[i++];
                } else {
                    a[k] = tmp[j++];
                }
            }
        }

        /** A new batch of rows {@code rows[i]} of {@code sources.get(src[i])}. */
        private VectorSchemaRoot copy(List<VectorSchemaRoot> sources, int[] src, int[] rows) {
            VectorSchemaRoot first = sources.getFirst();
            VectorSchemaRoot out = VectorSchemaRoot.create(first.getSchema(), allocator);
            try {
                for (FieldVector v : out.getFieldVectors()) {
                    v.setInitialCapacity(Math.max(1, rows.length)); // exact, not Arrow's default of ~4k values
                }
                out.allocateNew();
                for (int c = 0; c < out.getFieldVectors().size(); c++) {
                    FieldVector to = out.getVector(c);
                    for (int i = 0; i < rows.length; i++) {
                        to.copyFromSafe(rows[i], i, sources.get(src[i]).getVector(c));
                    }
                    to.setValueCount(rows.length);
                }
                out.setRowCount(rows.length);
                return out;
            } catch (RuntimeException e) {
                out.close();
                throw e;
            }
        }
    }
}
