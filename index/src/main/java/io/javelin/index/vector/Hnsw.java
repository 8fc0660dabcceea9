package io.javelin.index.vector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.index.CorruptIndexException;
import io.javelin.index.RowFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * An HNSW graph over the nodes {@code 0..n-1} of one partition's storage, as Lance builds and
 * stores it: node ids are positions in the partition's auxiliary storage; levels are drawn as
 * {@code min(floor(-ln(U)/ln(m)), max_level-1)} from a seeded generator; level 0 keeps up to
 * {@code 2m} neighbours, upper levels {@code m}; neighbours are chosen with the heuristic (diverse)
 * rule and pruned candidates back-fill free slots. Search descends greedily (ef=1) to level 1, then
 * runs a beam search with {@code ef} at level 0. With a prefilter that allows fewer than 10% of the
 * nodes the search is a brute-force scan of the allowed nodes, as Lance does.
 *
 * <p>Storage ({@link #toBatch}): one row per (level, node), sorted by level then node id, columns
 * {@code __vector_id: uint32}, {@code __neighbors: list<uint32>}, {@code _distance: list<float32>};
 * partition metadata {@code {"entry_point":e,"params":{...},"level_offsets":[...]}} with the
 * cumulative row start of every level plus the final end.
 */
public final class Hnsw {

    public static final String VECTOR_ID = "__vector_id";
    public static final String NEIGHBORS = "__neighbors";
    public static final String DISTANCE = "_distance";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Distances between stored nodes, and from a query to a node. */
    public interface Scorer {
        int size();

        float between(int a, int b);

        /** Distance from the bound query to {@code node}. */
        QueryScorer query(float[] q);
    }

    @FunctionalInterface
    public interface QueryScorer {
        float distance(int node);
    }

    /** Lance's {@code HnswBuildParams}: max_level 7, m 20, ef_construction 150, seed 42. */
    public record Params(int maxLevel, int m, int efConstruction, long seed) {
        public static final Params LANCE_DEFAULT = new Params(7, 20, 150, 42);

        public Params {
            if (m < 4) {
                throw new IllegalArgumentException("HNSW m must be >= 4, got " + m);
            }
            if (maxLevel < 1) {
                throw new IllegalArgumentException("HNSW max_level must be >= 1, got " + maxLevel);
            }
        }

        public Params withEfConstruction(int ef) {
            return new Params(maxLevel, m, ef, seed);
        }
    }

    /** f32 vectors stored row-major. */
    public static Scorer flatScorer(float[] data, int dim, DistanceType type) {
        int n = data.length / dim;
        return new Scorer() {
            @Override
            public int size() {
                return n;
            }

            @Override
            public float between(int a, int b) {
                return type.f32(data, a * dim, data, b * dim, dim);
            }

            @Override
            public QueryScorer query(float[] q) {
                return node -> type.f32(q, 0, data, node * dim, dim);
            }
        };
    }

    private final Params params;
    private final int[] nodeLevel; // top level of each node
    private final int[][][] neighbors; // [level][node] -> ids (null when the node is not on that level)
    private final float[][][] distances;
    private final int entryPoint;
    private final int topLevel;

    private Hnsw(Params params, int[] nodeLevel, int[][][] neighbors, float[][][] distances, int entryPoint, int topLevel) {
        this.params = params;
        this.nodeLevel = nodeLevel;
        this.neighbors = neighbors;
        this.distances = distances;
        this.entryPoint = entryPoint;
        this.topLevel = topLevel;
    }

    public int size() {
        return nodeLevel.length;
    }

    /** The build parameters (as stored in the partition's metadata). */
    public Params params() {
        return params;
    }

    public int entryPoint() {
        return entryPoint;
    }

    public int levels() {
        return topLevel + 1;
    }

    public int[] neighbors(int level, int node) {
        int[] n = neighbors[level][node];
        return n == null ? new int[0] : n.clone();
    }

    // ------------------------------------------------------------------ build

    public static Hnsw build(Scorer s, Params p) {
        int n = s.size();
        SplittableRandom rnd = new SplittableRandom(p.seed());
        double ml = 1 / Math.log(p.m());
        int[] level = new int[n];
        int maxDrawn = 0;
        for (int i = 0; i < n; i++) {
            double u = 1 - rnd.nextDouble(); // (0, 1]
            level[i] = (int) Math.min(Math.floor(-Math.log(u) * ml), p.maxLevel() - 1);
            maxDrawn = Math.max(maxDrawn, level[i]);
        }
        int[][][] nb = new int[maxDrawn + 1][n][];
        float[][][] nd = new float[maxDrawn + 1][n][];
        int[][] size = new int[maxDrawn + 1][n];
        for (int i = 0; i < n; i++) {
            for (int l = 0; l <= level[i]; l++) {
                int cap = l == 0 ? 2 * p.m() : p.m();
                nb[l][i] = new int[cap];
                nd[l][i] = new float[cap];
            }
        }
        int entry = -1;
        int top = -1;
        Visited visited = new Visited(n);
        LongHeap[] heaps = {new LongHeap(p.efConstruction() * 2), new LongHeap(p.efConstruction() + 1)};
        for (int i = 0; i < n; i++) {
            if (entry < 0) {
                entry = i;
                top = level[i];
                continue;
            }
            final int node = i;
            QueryScorer qs = other -> s.between(node, other);
            int cur = entry;
            float curD = qs.distance(cur);
            for (int l = top; l > level[i]; l--) {
                int[] r = greedy(qs, cur, curD, l, nb, size);
                cur = r[0];
                curD = Float.intBitsToFloat(r[1]);
            }
            for (int l = Math.min(level[i], top); l >= 0; l--) {
                int cap = l == 0 ? 2 * p.m() : p.m();
                long[] found = buildBeam(qs, cur, curD, p.efConstruction(), l, nb, size, visited, heaps);
                int[] chosen = selectHeuristic(s, found, cap);
                for (int c : chosen) {
                    float d = qs.distance(c);
                    addEdge(s, nb, nd, size, l, i, c, d, cap);
                    addEdge(s, nb, nd, size, l, c, i, d, cap);
                }
                if (found.length > 0) {
                    cur = (int) found[0];
                    curD = Float.intBitsToFloat((int) (found[0] >>> 32));
                }
            }
            if (level[i] > top) {
                top = level[i];
                entry = i;
            }
        }
        int[][][] outN = new int[Math.max(top, 0) + 1][n][];
        float[][][] outD = new float[Math.max(top, 0) + 1][n][];
        for (int l = 0; l <= top; l++) {
            for (int i = 0; i < n; i++) {
                if (nb[l][i] != null) {
                    outN[l][i] = Arrays.copyOf(nb[l][i], size[l][i]);
                    outD[l][i] = Arrays.copyOf(nd[l][i], size[l][i]);
                }
            }
        }
        return new Hnsw(p, level, outN, outD, Math.max(entry, 0), Math.max(top, 0));
    }

    private static void addEdge(Scorer s, int[][][] nb, float[][][] nd, int[][] size, int l, int from, int to, float d, int cap) {
        int sz = size[l][from];
        int[] list = nb[l][from];
        for (int j = 0; j < sz; j++) {
            if (list[j] == to) {
                return;
            }
        }
        if (sz < cap) {
            list[sz] = to;
            nd[l][from][sz] = d;
            size[l][from] = sz + 1;
            return;
        }
        // full: Lance's cutoff — an edge no nearer than the current farthest neighbour is not added (no re-selection)
        float worst = Float.NEGATIVE_INFINITY;
        float[] dl = nd[l][from];
        for (int j = 0; j < sz; j++) {
            worst = Math.max(worst, dl[j]);
        }
        if (!(d < worst)) {
            return;
        }
        // full: re-select among the old neighbours plus the new one with the heuristic
        long[] cands = new long[sz + 1];
        for (int j = 0; j < sz; j++) {
            cands[j] = pack(list[j], nd[l][from][j]);
        }
        cands[sz] = pack(to, d);
        sortByDistance(cands);
        int[] chosen = selectHeuristic(s, cands, cap);
        for (int j = 0; j < chosen.length; j++) {
            list[j] = chosen[j];
            nd[l][from][j] = distanceOf(cands, chosen[j]);
        }
        size[l][from] = chosen.length;
    }

    private static float distanceOf(long[] cands, int id) {
        for (long c : cands) {
            if ((int) c == id) {
                return Float.intBitsToFloat((int) (c >>> 32));
            }
        }
        return Float.NaN;
    }

    /** Packs (distance, id) so that sorting the longs of non-negative distances sorts by distance then id. */
    private static long pack(int id, float d) {
        return ((long) Float.floatToRawIntBits(d) << 32) | (id & 0xFFFFFFFFL);
    }

    /** Sorts packed (distance, id) pairs by distance (negative distances included), then id; small arrays. */
    private static void sortByDistance(long[] c) {
        for (int i = 1; i < c.length; i++) {
            long x = c[i];
            int j = i - 1;
            while (j >= 0 && packedGreater(c[j], x)) {
                c[j + 1] = c[j];
                j--;
            }
            c[j + 1] = x;
        }
    }

    private static boolean packedGreater(long a, long b) {
        int x = Float.compare(Float.intBitsToFloat((int) (a >>> 32)), Float.intBitsToFloat((int) (b >>> 32)));
        return x > 0 || (x == 0 && (int) a > (int) b);
    }

    /**
     * The heuristic: walk candidates nearest first, keep one when it is closer to the base than to
     * every kept neighbour; fill remaining slots with pruned candidates (nearest first).
     */
    private static int[] selectHeuristic(Scorer s, long[] sortedCands, int cap) {
        int[] kept = new int[Math.min(cap, sortedCands.length)];
        int k = 0;
        boolean[] used = new boolean[sortedCands.length];
        for (int i = 0; i < sortedCands.length && k < cap; i++) {
            int c = (int) sortedCands[i];
            float dc = Float.intBitsToFloat((int) (sortedCands[i] >>> 32));
            boolean good = true;
            for (int j = 0; j < k; j++) {
                if (s.between(c, kept[j]) < dc) {
                    good = false;
                    break;
                }
            }
            if (good) {
                kept[k++] = c;
                used[i] = true;
            }
        }
        for (int i = 0; i < sortedCands.length && k < cap; i++) {
            if (!used[i]) {
                kept[k++] = (int) sortedCands[i];
            }
        }
        return Arrays.copyOf(kept, k);
    }

    /** Greedy walk at one level; returns {node, floatBits(distance)}. */
    private static int[] greedy(QueryScorer qs, int cur, float curD, int level, int[][][] nb, int[][] size) {
        boolean changed = true;
        while (changed) {
            changed = false;
            int[] list = nb[level][cur];
            int sz = size == null ? (list == null ? 0 : list.length) : size[level][cur];
            for (int j = 0; j < sz; j++) {
                int c = list[j];
                float d = qs.distance(c);
                if (d < curD || (d == curD && c < cur)) {
                    cur = c;
                    curD = d;
                    changed = true;
                }
            }
        }
        return new int[] {cur, Float.floatToRawIntBits(curD)};
    }

    /**
     * Beam search at one level from the given entry points; returns up to {@code ef} packed
     * (distance, id) results that pass {@code filter}, nearest first. Unfiltered nodes are still
     * traversed (so a filter does not disconnect the graph).
     */
    private static long[] beam(QueryScorer qs, int[] entries, float[] entryD, int ef, int level, int[][][] nb, int[][] size,
                               Visited visited, RowFilter filter, long[] nodeRowIds) {
        visited.clear();
        PriorityQueue<long[]> candidates = new PriorityQueue<>((a, b) -> cmp(a, b));
        PriorityQueue<long[]> results = new PriorityQueue<>((a, b) -> cmp(b, a)); // max-heap
        for (int i = 0; i < entries.length; i++) {
            visited.mark(entries[i]);
            long[] e = {Float.floatToRawIntBits(entryD[i]), entries[i]};
            candidates.add(e);
            if (passes(filter, nodeRowIds, entries[i])) {
                results.add(e);
            }
        }
        while (!candidates.isEmpty()) {
            long[] c = candidates.poll();
            float cd = Float.intBitsToFloat((int) c[0]);
            if (results.size() >= ef && cd > Float.intBitsToFloat((int) results.peek()[0])) {
                break;
            }
            int node = (int) c[1];
            int[] list = nb[level][node];
            int sz = size == null ? (list == null ? 0 : list.length) : size[level][node];
            for (int j = 0; j < sz; j++) {
                int x = list[j];
                if (!visited.mark(x)) {
                    continue;
                }
                float d = qs.distance(x);
                if (results.size() < ef || d < Float.intBitsToFloat((int) results.peek()[0])) {
                    long[] e = {Float.floatToRawIntBits(d), x};
                    candidates.add(e);
                    if (passes(filter, nodeRowIds, x)) {
                        results.add(e);
                        if (results.size() > ef) {
                            results.poll();
                        }
                    }
                }
            }
        }
        long[] out = new long[results.size()];
        for (int i = out.length - 1; i >= 0; i--) {
            long[] e = results.poll();
            out[i] = pack((int) e[1], Float.intBitsToFloat((int) e[0]));
        }
        return out;
    }

    /**
     * {@link #beam} for graph construction (no filter, one entry point) over primitive heaps of
     * {@link #order}-packed (distance, id) longs instead of boxed queue entries; same results.
     */
    private static long[] buildBeam(QueryScorer qs, int entry, float entryD, int ef, int level, int[][][] nb, int[][] size,
                                    Visited visited, LongHeap[] heaps) {
        visited.clear();
        LongHeap candidates = heaps[0];
        LongHeap results = heaps[1]; // holds negated keys: a max-heap
        candidates.clear();
        results.clear();
        visited.mark(entry);
        long e0 = order(entry, entryD);
        candidates.push(e0);
        results.push(-e0);
        while (candidates.size() > 0) {
            long c = candidates.pop();
            if (results.size() >= ef && orderedDistance(c) > orderedDistance(-results.peek())) {
                break;
            }
            int node = (int) c;
            int[] list = nb[level][node];
            int sz = size[level][node];
            for (int j = 0; j < sz; j++) {
                int x = list[j];
                if (!visited.mark(x)) {
                    continue;
                }
                float d = qs.distance(x);
                if (results.size() < ef || d < orderedDistance(-results.peek())) {
                    long key = order(x, d);
                    candidates.push(key);
                    results.push(-key);
                    if (results.size() > ef) {
                        results.pop();
                    }
                }
            }
        }
        long[] out = new long[results.size()];
        for (int i = out.length - 1; i >= 0; i--) {
            long k = -results.pop();
            out[i] = pack((int) k, orderedDistance(k));
        }
        return out;
    }

    /** (distance, id) as one long whose signed order is distance order (negatives and NaN as Float.compare), then id. */
    private static long order(int id, float d) {
        int bits = Float.floatToRawIntBits(d);
        bits ^= (bits >> 31) & 0x7fffffff;
        return ((long) bits << 32) | (id & 0xFFFFFFFFL);
    }

    private static float orderedDistance(long key) {
        int bits = (int) (key >> 32);
        bits ^= (bits >> 31) & 0x7fffffff;
        return Float.intBitsToFloat(bits);
    }

    /** A growable binary min-heap of longs. */
    private static final class LongHeap {
        private long[] a;
        private int n;

        LongHeap(int capacity) {
            a = new long[Math.max(4, capacity)];
        }

        int size() {
            return n;
        }

        void clear() {
            n = 0;
        }

        long peek() {
            return a[0];
        }

        void push(long v) {
            if (n == a.length) {
                a = Arrays.copyOf(a, n * 2);
            }
            int i = n++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (a[parent] <= v) {
                    break;
                }
                a[i] = a[parent];
                i = parent;
            }
            a[i] = v;
        }

        long pop() {
            long top = a[0];
            long v = a[--n];
            int i = 0;
            int half = n >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                if (child + 1 < n && a[child + 1] < a[child]) {
                    child++;
                }
                if (v <= a[child]) {
                    break;
                }
                a[i] = a[child];
                i = child;
            }
            if (n > 0) {
                a[i] = v;
            }
            return top;
        }
    }

    private static boolean passes(RowFilter f, long[] rowIds, int node) {
        return f == RowFilter.ALL || f.allows(rowIds == null ? node : rowIds[node]);
    }

    private static int cmp(long[] a, long[] b) {
        int c = Float.compare(Float.intBitsToFloat((int) a[0]), Float.intBitsToFloat((int) b[0]));
        return c != 0 ? c : Long.compare(a[1], b[1]);
    }

    /** Epoch-stamped visited set: clearing is O(1). */
    private static final class Visited {
        private final int[] stamp;
        private int epoch;

        Visited(int n) {
            stamp = new int[n];
        }

        void clear() {
            epoch++;
        }

        /** Marks {@code i}; returns false when it was already visited in this epoch. */
        boolean mark(int i) {
            if (stamp[i] == epoch) {
                return false;
            }
            stamp[i] = epoch;
            return true;
        }
    }

    // ------------------------------------------------------------------ search

    /**
     * The {@code k} nearest nodes to the query, mapped to row ids through {@code rowIds} (the
     * partition's {@code _rowid} column). {@code ef} 0 means Lance's {@code k + k/2}.
     */
    public Neighbor[] search(QueryScorer qs, long[] rowIds, int k, int ef, RowFilter filter) {
        int n = size();
        if (n == 0) {
            return new Neighbor[0];
        }
        int beamWidth = Math.max(k, ef > 0 ? ef : k + k / 2);
        if (filter != RowFilter.ALL) {
            int allowed = 0;
            for (int i = 0; i < n; i++) {
                if (filter.allows(rowIds[i])) {
                    allowed++;
                }
            }
            if (allowed * 10L < n) {
                TopK top = new TopK(k);
                for (int i = 0; i < n; i++) {
                    if (filter.allows(rowIds[i])) {
                        top.offer(rowIds[i], qs.distance(i));
                    }
                }
                return top.sorted();
            }
        }
        int cur = entryPoint;
        float curD = qs.distance(cur);
        for (int l = topLevel; l >= 1; l--) {
            int[] r = greedy(qs, cur, curD, l, neighbors, null);
            cur = r[0];
            curD = Float.intBitsToFloat(r[1]);
        }
        long[] found = beam(qs, new int[] {cur}, new float[] {curD}, beamWidth, 0, neighbors, null, new Visited(n), filter, rowIds);
        TopK top = new TopK(k);
        for (long f : found) {
            int node = (int) f;
            top.offer(rowIds[node], Float.intBitsToFloat((int) (f >>> 32)));
        }
        return top.sorted();
    }

    // ------------------------------------------------------------------ Lance storage

    /**
     * Cumulative row start of every level plus the end (the {@code level_offsets} of HnswMetadata),
     * padded with empty levels up to {@code max_level}: Lance 7.0.0's search indexes levels by
     * {@code params.max_level} and panics on a shorter list (found by the interop test).
     */
    public long[] levelOffsets() {
        long[] off = new long[Math.max(topLevel + 2, params.maxLevel() + 1)];
        for (int l = 0; l <= topLevel; l++) {
            int count = 0;
            for (int[] nodes : neighbors[l]) {
                if (nodes != null) {
                    count++;
                }
            }
            off[l + 1] = off[l] + count;
        }
        for (int l = topLevel + 2; l < off.length; l++) {
            off[l] = off[topLevel + 1];
        }
        return off;
    }

    /** The per-partition {@code HnswMetadata} JSON (one element of {@code lance:hnsw}). */
    public String metadataJson() {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT,
                "{\"entry_point\":%d,\"params\":{\"max_level\":%d,\"m\":%d,\"ef_construction\":%d,\"prefetch_distance\":2},\"level_offsets\":[",
                entryPoint, params.maxLevel(), params.m(), params.efConstruction()));
        long[] off = levelOffsets();
        for (int i = 0; i < off.length; i++) {
            sb.append(i == 0 ? "" : ",").append(off[i]);
        }
        return sb.append("]}").toString();
    }

    public static Schema schema() {
        return new Schema(List.of(
                new Field(VECTOR_ID, FieldType.notNullable(new ArrowType.Int(32, false)), null),
                new Field(NEIGHBORS, FieldType.nullable(ArrowType.List.INSTANCE),
                        List.of(new Field("item", FieldType.nullable(new ArrowType.Int(32, false)), null))),
                new Field(DISTANCE, FieldType.nullable(ArrowType.List.INSTANCE),
                        List.of(new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));
    }

    /** The graph as the rows Lance stores in {@code index.idx}: level-major, node id ascending. */
    public VectorSchemaRoot toBatch(BufferAllocator allocator) {
        VectorSchemaRoot root = VectorSchemaRoot.create(schema(), allocator);
        try {
            int[] end = appendTo(root, 0, 0);
            finish(root, end);
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    /** Number of rows this graph occupies in {@code index.idx}. */
    public int rowCount() {
        long[] off = levelOffsets();
        return (int) off[off.length - 1];
    }

    /** Appends this graph's rows to a root of {@link #schema()} at (row, item); returns the new (row, item). */
    public int[] appendTo(VectorSchemaRoot root, int row, int item) {
        UInt4Vector ids = (UInt4Vector) root.getVector(VECTOR_ID);
        ListVector nbs = (ListVector) root.getVector(NEIGHBORS);
        ListVector dss = (ListVector) root.getVector(DISTANCE);
        UInt4Vector nbItems = (UInt4Vector) nbs.getDataVector();
        Float4Vector dsItems = (Float4Vector) dss.getDataVector();
        for (int l = 0; l <= topLevel; l++) {
            for (int node = 0; node < nodeLevel.length; node++) {
                int[] list = neighbors[l][node];
                if (list == null) {
                    continue;
                }
                ids.setSafe(row, node);
                nbs.startNewValue(row);
                dss.startNewValue(row);
                for (int j = 0; j < list.length; j++) {
                    nbItems.setSafe(item + j, list[j]);
                    dsItems.setSafe(item + j, distances[l][node][j]);
                }
                item += list.length;
                nbs.endValue(row, list.length);
                dss.endValue(row, list.length);
                row++;
            }
        }
        return new int[] {row, item};
    }

    /** Sets the value counts after the last {@link #appendTo}. */
    public static void finish(VectorSchemaRoot root, int[] end) {
        ((ListVector) root.getVector(NEIGHBORS)).getDataVector().setValueCount(end[1]);
        ((ListVector) root.getVector(DISTANCE)).getDataVector().setValueCount(end[1]);
        root.getVector(VECTOR_ID).setValueCount(end[0]);
        root.getVector(NEIGHBORS).setValueCount(end[0]);
        root.getVector(DISTANCE).setValueCount(end[0]);
        root.setRowCount(end[0]);
    }

    /**
     * Loads one partition's graph from its rows (the {@code [level_offsets[0], level_offsets[last])}
     * slice of {@code index.idx}) and its HnswMetadata JSON; {@code numNodes} is the partition's
     * storage size. Trailing empty levels are tolerated.
     */
    public static Hnsw fromBatch(VectorSchemaRoot rows, int rowOffset, String metadataJson, int numNodes, String resource) {
        try {
            JsonNode meta = JSON.readTree(metadataJson);
            JsonNode offs = meta.path("level_offsets");
            CorruptIndexException.check(offs.isArray() && offs.size() >= 2, resource, "HNSW level_offsets missing: %s", metadataJson);
            JsonNode pj = meta.path("params");
            Params params = new Params(pj.path("max_level").asInt(7), pj.path("m").asInt(20), pj.path("ef_construction").asInt(150), 42);
            int entry = meta.path("entry_point").asInt(-1);
            CorruptIndexException.check(entry >= 0 && entry < Math.max(numNodes, 1), resource, "HNSW entry point %d out of range", entry);
            FieldVector idv = rows.getVector(VECTOR_ID);
            FieldVector nbv = rows.getVector(NEIGHBORS);
            FieldVector dsv = rows.getVector(DISTANCE);
            CorruptIndexException.check(idv instanceof UInt4Vector && nbv instanceof ListVector, resource, "HNSW columns have wrong types");
            ListVector nbl = (ListVector) nbv;
            CorruptIndexException.check(nbl.getDataVector() instanceof UInt4Vector, resource, "__neighbors items must be uint32");
            UInt4Vector ids = (UInt4Vector) idv;
            UInt4Vector items = (UInt4Vector) nbl.getDataVector();
            Float4Vector ditems = dsv instanceof ListVector dl && dl.getDataVector() instanceof Float4Vector f ? f : null;
            ArrowBuf offsets = nbl.getOffsetBuffer();
            int levels = offs.size() - 1;
            List<int[][]> nbLevels = new ArrayList<>();
            List<float[][]> dLevels = new ArrayList<>();
            int[] nodeLevel = new int[numNodes];
            int top = 0;
            long base = offs.get(0).asLong();
            for (int l = 0; l < levels; l++) {
                long from = offs.get(l).asLong() - base, to = offs.get(l + 1).asLong() - base;
                CorruptIndexException.check(from <= to && rowOffset + to <= rows.getRowCount(), resource,
                        "HNSW level %d rows [%d, %d) out of range", l, from, to);
                int[][] lv = new int[numNodes][];
                float[][] dv = new float[numNodes][];
                for (long r = from; r < to; r++) {
                    int row = (int) (rowOffset + r);
                    long node = ids.getValueAsLong(row);
                    CorruptIndexException.check(node < numNodes, resource, "HNSW node id %d >= %d", node, numNodes);
                    int s = offsets.getInt(4L * row), e = offsets.getInt(4L * row + 4);
                    int[] list = new int[e - s];
                    float[] dl = new float[e - s];
                    for (int j = s; j < e; j++) {
                        long x = items.getValueAsLong(j);
                        CorruptIndexException.check(x < numNodes, resource, "HNSW neighbour %d >= %d", x, numNodes);
                        list[j - s] = (int) x;
                        dl[j - s] = ditems == null ? Float.NaN : ditems.get(j);
                    }
                    lv[(int) node] = list;
                    dv[(int) node] = dl;
                    nodeLevel[(int) node] = Math.max(nodeLevel[(int) node], l);
                }
                if (to > from) {
                    top = l;
                }
                nbLevels.add(lv);
                dLevels.add(dv);
            }
            int[][][] nb = nbLevels.subList(0, top + 1).toArray(new int[0][][]);
            float[][][] nd = dLevels.subList(0, top + 1).toArray(new float[0][][]);
            return new Hnsw(params, nodeLevel, nb, nd, entry, top);
        } catch (CorruptIndexException e) {
            throw e;
        } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CorruptIndexException(resource, "Cannot load HNSW graph: " + e, e);
        }
    }
}
