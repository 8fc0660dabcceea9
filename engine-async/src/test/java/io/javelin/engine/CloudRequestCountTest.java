package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.StoreTraits;
import io.javelin.objectstore.fault.FaultInjectingObjectStore;
import io.javelin.objectstore.metrics.StoreCounters;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * Requests a dataset's reads cost on a store with cloud traits (an in-memory store that reports S3's traits and
 * counts every request): the side-by-side shape (id, f, s, vec[128]) in 2 data files of several pages per
 * column. The bounds are what Lance 7.0.0 needs for the same operations (opening: LIST + manifest; a file: one
 * tail read; scans: a GET per page or less; a filtered scan or take: a few large coalesced GETs per file).
 */
class CloudRequestCountTest {

    static final int DIM = 128;
    static final int ROWS = 60_000;
    static final int ROWS_PER_FILE = 30_000;
    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null),
            new Field("f", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
            new Field("vec", FieldType.nullable(new ArrowType.FixedSizeList(DIM)), List.of(
                    new Field("item", FieldType.nullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null)))));

    static String uri;

    @BeforeAll
    static void write() {
        uri = "memory://cloud-counts-" + System.nanoTime() + "/ds.lance";
        try (BufferAllocator alloc = new RootAllocator();
             Dataset ds = Dataset.write(uri, Flux.range(0, ROWS / 5000).map(i -> batch(alloc, i * 5000L, 5000)), SCHEMA,
                     WriteParams.of(WriteMode.CREATE).withMaxRowsPerFile(ROWS_PER_FILE)).block()) {
            assertThat(ds.fragments()).hasSize(ROWS / ROWS_PER_FILE);
        }
    }

    @AfterAll
    static void clear() {
        io.javelin.objectstore.inmemory.InMemoryObjectStore.clearNamespace(uri.substring("memory://".length(), uri.indexOf('/', 9)));
    }

    static VectorSchemaRoot batch(BufferAllocator alloc, long from, int n) {
        VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
        SplittableRandom rnd = new SplittableRandom(from);
        BigIntVector id = (BigIntVector) root.getVector("id");
        Float4Vector f = (Float4Vector) root.getVector("f");
        VarCharVector s = (VarCharVector) root.getVector("s");
        FixedSizeListVector vec = (FixedSizeListVector) root.getVector("vec");
        Float4Vector items = (Float4Vector) vec.getDataVector();
        root.allocateNew();
        for (int i = 0; i < n; i++) {
            id.setSafe(i, from + i);
            f.setSafe(i, (float) rnd.nextDouble());
            byte[] str = new byte[16 + rnd.nextInt(5)];
            for (int k = 0; k < str.length; k++) {
                str[k] = (byte) ('a' + rnd.nextInt(26));
            }
            s.setSafe(i, str);
            vec.setNotNull(i);
            for (int k = 0; k < DIM; k++) {
                items.setSafe(i * DIM + k, (float) rnd.nextDouble());
            }
        }
        root.setRowCount(n);
        return root;
    }

    /** The dataset over a fresh counting in-memory store that reports {@code traits}. */
    static Dataset open(StoreTraits traits, FaultInjectingObjectStore[] store) {
        store[0] = new FaultInjectingObjectStore(ObjectStores.open(uri, Map.of())).withTraits(traits);
        return Dataset.open(uri, store[0]).block();
    }

    /** GETs, HEADs and LISTs {@code op} sends. */
    static long reads(StoreCounters c, Runnable op) {
        long before = c.requests(OpClass.READ) + c.requests(OpClass.LIST);
        op.run();
        return c.requests(OpClass.READ) + c.requests(OpClass.LIST) - before;
    }

    static long rows(Supplier<Flux<VectorSchemaRoot>> scan) {
        AtomicLong n = new AtomicLong();
        scan.get().doOnNext(b -> {
            n.addAndGet(b.getRowCount());
            b.close();
        }).blockLast();
        return n.get();
    }

    /** Pages per column name over all data files, read from the files' metadata (all pages here are below 8 MiB). */
    static Map<String, Long> pages() {
        Map<String, Long> pages = new java.util.TreeMap<>();
        try (Dataset ds = Dataset.open(uri).block()) {
            for (var frag : ds.fragments()) {
                for (var file : frag.fragment().getFilesList()) {
                    var r = ds.openFile(file, ds.io()).block(); // kept open (and closed) by the dataset
                    for (var top : r.metadata().fields()) {
                        for (int col : columns(top, new java.util.ArrayList<>())) {
                            pages.merge(top.name(), (long) r.metadata().columns().get(col).getPagesCount(), Long::sum);
                        }
                    }
                }
            }
        }
        return pages;
    }

    /** The columns of a field and of everything under it. */
    static List<Integer> columns(io.javelin.encoding.file.LanceField f, List<Integer> out) {
        if (f.column() >= 0) {
            out.add(f.column());
        }
        f.children().forEach(ch -> columns(ch, out));
        return out;
    }

    static final List<String> ALL = List.of("id", "f", "s", "vec");
    static final long[] TAKE = new SplittableRandom(7).longs(1000, 0, ROWS).sorted().toArray();
    /** Rows about 2 MiB of vectors apart: each page keeps its partial plan. */
    static final long[] SPARSE_TAKE = {17, 4_111, 9_876, 25_000, 31_313, 44_444, 59_999};

    @Test
    void openScansFilteredScanAndTakeCostAboutAGetPerPageOrLess() {
        Map<String, Long> pages = pages();
        long allPages = pages.values().stream().mapToLong(Long::longValue).sum();
        int files = ROWS / ROWS_PER_FILE;
        assertThat(allPages).as("the data spans several pages per file").isGreaterThanOrEqualTo(4L * files);
        FaultInjectingObjectStore[] s = new FaultInjectingObjectStore[1];
        try (BufferAllocator alloc = new RootAllocator()) {
            Dataset ds = open(StoreTraits.cloudDefaults(), s); // a fresh store: its counters start at 0
            StoreCounters c = s[0].counters();
            long open = c.requests(OpClass.READ) + c.requests(OpClass.LIST);
            try (ds) {
                // Lance: LIST _versions + one manifest GET
                assertThat(open).as("open").isLessThanOrEqualTo(2);
                // each file: one tail read (its size comes from the manifest, no HEAD), then a GET per page
                long fullCold = reads(c, () -> assertThat(rows(() -> ds.scanner().scan(alloc))).isEqualTo(ROWS));
                assertThat(fullCold).as("first full scan").isLessThanOrEqualTo(files + allPages);
                long full = reads(c, () -> rows(() -> ds.scanner().scan(alloc)));
                assertThat(full).as("full scan, files open").isLessThanOrEqualTo(allPages);
                for (String col : ALL) {
                    assertThat(reads(c, () -> rows(() -> ds.scanner().columns(col).scan(alloc)))).as("scan of " + col)
                            .isLessThanOrEqualTo(pages.get(col));
                }
                // late materialization: the survivors' rows of id, s and vec lie closer together than the coalescing
                // gap, so their pages are read whole, as a full scan (and Lance's filtered scan) reads them, in one
                // round without the chunk tables; each page is its own GET (a full scan merges neighbouring pages of
                // a batch into one), so up to one more per file here
                long[] n = new long[1];
                long filtered = reads(c, () -> n[0] = rows(() -> ds.scanner().filter("f < 0.01").scan(alloc)));
                assertThat(n[0]).isBetween(ROWS / 200L, ROWS / 50L);
                assertThat(filtered).as("filtered scan").isLessThanOrEqualTo(full + files);
                long take = reads(c, () -> ds.take(TAKE, ALL, alloc).block().close());
                assertThat(take).as("take of 1000 rows").isLessThanOrEqualTo(full);
                // 1000 of 60k rows are as dense as the filtered scan's: pages read whole again, never more GETs
                long again = reads(c, () -> ds.take(TAKE, ALL, alloc).block().close());
                assertThat(again).as("repeated dense take").isLessThanOrEqualTo(take);
                // a sparse take (rows far apart) reads chunk tables, then rows; repeated, the tables are cached
                long sparseCold = reads(c, () -> ds.take(SPARSE_TAKE, ALL, alloc).block().close());
                long sparse = reads(c, () -> ds.take(SPARSE_TAKE, ALL, alloc).block().close());
                assertThat(sparse).as("repeated sparse take: chunk tables cached").isLessThan(sparseCold);
            }
        }
    }

    @Test
    void cloudTraitsCoalesceATakeIntoFarFewerRequestsThanLocalOnes() {
        FaultInjectingObjectStore[] s = new FaultInjectingObjectStore[1];
        try (BufferAllocator alloc = new RootAllocator()) {
            long cloud;
            try (Dataset ds = open(StoreTraits.cloudDefaults(), s)) {
                ds.take(TAKE, ALL, alloc).block().close();
                cloud = reads(s[0].counters(), () -> ds.take(TAKE, ALL, alloc).block().close());
            }
            // local traits (4 KiB gap) over the same non-batching store: one GET per few chunks
            long local;
            try (Dataset ds = open(StoreTraits.localDefaults(), s)) {
                ds.take(TAKE, ALL, alloc).block().close();
                local = reads(s[0].counters(), () -> ds.take(TAKE, ALL, alloc).block().close());
            }
            assertThat(cloud).isGreaterThanOrEqualTo(1);
            assertThat(local).isGreaterThanOrEqualTo(10 * cloud);
        }
    }
}
