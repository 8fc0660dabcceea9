package io.javelin.objectstore.metrics;

import io.javelin.objectstore.OpClass;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Requests, bytes, failures, throttles and retries per operation class for one store. Every
 * request sent to the backend counts once (a retry is another request; a multipart upload counts
 * each part), so tests can assert exact request counts.
 */
public final class StoreCounters {

    private final String store;
    private final Map<OpClass, Cells> cells = new EnumMap<>(OpClass.class);

    public StoreCounters(String store) {
        this.store = store;
        for (OpClass op : OpClass.values()) {
            cells.put(op, new Cells());
        }
    }

    /** Label of the store, e.g. {@code s3://bucket}. */
    public String store() {
        return store;
    }

    public void request(OpClass op) {
        cells.get(op).requests.increment();
    }

    public void bytes(OpClass op, long n) {
        cells.get(op).bytes.add(n);
    }

    public void failure(OpClass op) {
        cells.get(op).failures.increment();
    }

    public void throttle(OpClass op) {
        cells.get(op).throttles.increment();
    }

    public void retry(OpClass op) {
        cells.get(op).retries.increment();
    }

    public long requests(OpClass op) {
        return cells.get(op).requests.sum();
    }

    public long bytes(OpClass op) {
        return cells.get(op).bytes.sum();
    }

    public long failures(OpClass op) {
        return cells.get(op).failures.sum();
    }

    public long throttles(OpClass op) {
        return cells.get(op).throttles.sum();
    }

    public long retries(OpClass op) {
        return cells.get(op).retries.sum();
    }

    /** An immutable copy, for "this operation cost N requests" assertions via {@link Snapshot#minus}. */
    public Snapshot snapshot() {
        long[] v = new long[OpClass.values().length * 5];
        for (OpClass op : OpClass.values()) {
            int b = op.ordinal() * 5;
            v[b] = requests(op);
            v[b + 1] = bytes(op);
            v[b + 2] = failures(op);
            v[b + 3] = throttles(op);
            v[b + 4] = retries(op);
        }
        return new Snapshot(v);
    }

    /** Counter values at one instant. */
    public static final class Snapshot {
        private final long[] v;

        private Snapshot(long[] v) {
            this.v = v;
        }

        public long requests(OpClass op) {
            return v[op.ordinal() * 5];
        }

        public long bytes(OpClass op) {
            return v[op.ordinal() * 5 + 1];
        }

        public long failures(OpClass op) {
            return v[op.ordinal() * 5 + 2];
        }

        public long throttles(OpClass op) {
            return v[op.ordinal() * 5 + 3];
        }

        public long retries(OpClass op) {
            return v[op.ordinal() * 5 + 4];
        }

        public long totalRequests() {
            long t = 0;
            for (OpClass op : OpClass.values()) {
                t += requests(op);
            }
            return t;
        }

        /** This snapshot minus an earlier one. */
        public Snapshot minus(Snapshot earlier) {
            long[] d = new long[v.length];
            for (int i = 0; i < v.length; i++) {
                d[i] = v[i] - earlier.v[i];
            }
            return new Snapshot(d);
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder("{");
            for (OpClass op : OpClass.values()) {
                sb.append(op.label()).append(": ").append(requests(op)).append(" req/").append(bytes(op)).append(" B");
                sb.append(op == OpClass.DELETE ? "}" : ", ");
            }
            return sb.toString();
        }
    }

    private static final class Cells {
        final LongAdder requests = new LongAdder();
        final LongAdder bytes = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder throttles = new LongAdder();
        final LongAdder retries = new LongAdder();
    }
}
