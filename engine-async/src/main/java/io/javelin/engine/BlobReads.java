package io.javelin.engine;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.objectstore.io.PageIoScheduler;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.Field;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Blob reads of a dataset: the descriptors of the selected rows are taken like any column, then each is
 * resolved to the object holding its bytes (inline: the row's data file; packed and dedicated: the data
 * file's {@code .blob} sidecars; external: the URI) and read through that store's page-I/O scheduler.
 * Legacy ({@code lance-encoding:blob}) columns are taken with their bytes and served from memory.
 */
final class BlobReads {

    /** Groups of {@link #readBlobs} (one per object) read at the same time. */
    static final int OBJECT_CONCURRENCY = 16;

    private BlobReads() {
    }

    static Flux<BlobHandle> takeBlobs(Dataset ds, String column, long[] indices) {
        return resolve(ds, column, indices).flatMapMany(Flux::fromIterable);
    }

    /**
     * Whole payloads: the rows' ranges are grouped by object and each object read with one scheduler
     * request (coalesced and split there). Blobs are emitted as their object's read completes.
     */
    static Flux<Blob> readBlobs(Dataset ds, String column, long[] indices) {
        return resolve(ds, column, indices).flatMapMany(BlobReads::readAll);
    }

    /**
     * Blob-local ranges of several rows: the rows are resolved once, ranges past a non-null blob's size are an
     * {@link InvalidScanException}, and the ranges on one object go to the scheduler as one request.
     */
    static Flux<BlobRange.Result> readRanges(Dataset ds, String column, List<BlobRange> requests) {
        long[] rows = requests.stream().mapToLong(BlobRange::row).distinct().toArray();
        return resolve(ds, column, rows).flatMapMany(handles -> {
            Map<Long, BlobHandle> byRow = new HashMap<>();
            for (BlobHandle h : handles) {
                byRow.put(rows[h.index()], h);
            }
            List<BlobRange.Result> ready = new ArrayList<>();
            Map<String, List<Integer>> byObject = new LinkedHashMap<>();
            for (int i = 0; i < requests.size(); i++) {
                BlobRange r = requests.get(i);
                BlobHandle h = byRow.get(r.row());
                if (h.isNull()) {
                    ready.add(new BlobRange.Result(i, h.rowAddress(), null));
                    continue;
                }
                if (r.offset() > h.size() - r.length() || r.length() > Integer.MAX_VALUE) {
                    return Flux.error(new InvalidScanException(ds.uri(), ds.version(), "Range [" + r.offset() + ", +" + r.length()
                            + ") of request " + i + " is outside the blob of " + h.size() + " bytes at row " + r.row()));
                }
                BlobHandle.Source s = h.source();
                if (r.length() == 0 || s.inMemory() != null) {
                    ready.add(new BlobRange.Result(i, h.rowAddress(), r.length() == 0 ? ByteBuffer.allocate(0)
                            : ByteBuffer.wrap(s.inMemory(), (int) r.offset(), (int) r.length()).slice()));
                    continue;
                }
                byObject.computeIfAbsent(System.identityHashCode(s.io()) + ":" + s.path(), k -> new ArrayList<>()).add(i);
            }
            return Flux.fromIterable(ready).concatWith(Flux.fromIterable(byObject.values()).flatMap(group -> {
                BlobHandle.Source s = byRow.get(requests.get(group.get(0)).row()).source();
                List<ByteRange> ranges = new ArrayList<>();
                for (int i : group) {
                    BlobRange r = requests.get(i);
                    BlobHandle.Source si = byRow.get(r.row()).source();
                    ranges.add(new ByteRange(si.offset() + r.offset(), r.length()));
                }
                return s.io().submit(s.path(), ranges, 0).flatMapIterable(res -> {
                    try {
                        List<BlobRange.Result> out = new ArrayList<>();
                        for (int k = 0; k < group.size(); k++) {
                            int i = group.get(k);
                            out.add(new BlobRange.Result(i, byRow.get(requests.get(i).row()).rowAddress(),
                                    ByteBuffer.wrap(res.buffer(k).toByteArray())));
                        }
                        return out;
                    } finally {
                        res.release();
                    }
                });
            }, OBJECT_CONCURRENCY));
        });
    }

    /** Whole payloads of {@code handles}, one scheduler request per object. */
    static Flux<Blob> readAll(List<BlobHandle> handles) {
        return Flux.defer(() -> {
            Map<String, List<BlobHandle>> byObject = new LinkedHashMap<>();
            List<Blob> ready = new ArrayList<>();
            for (BlobHandle h : handles) {
                BlobHandle.Source s = source(h);
                if (s == null || s.inMemory() != null || s.size() == 0) {
                    ready.add(new Blob(h.index(), h.rowAddress(), h.isNull() ? null
                            : s.size() == 0 ? ByteBuffer.allocate(0) : ByteBuffer.wrap(s.inMemory())));
                } else {
                    byObject.computeIfAbsent(System.identityHashCode(s.io()) + ":" + s.path(), k -> new ArrayList<>()).add(h);
                }
            }
            return Flux.fromIterable(ready).concatWith(Flux.fromIterable(byObject.values())
                    .flatMap(BlobReads::readGroup, OBJECT_CONCURRENCY));
        });
    }

    private static Flux<Blob> readGroup(List<BlobHandle> group) {
        BlobHandle.Source first = source(group.get(0));
        // distinct ranges in file order; rows asking for the same bytes share one
        Map<Long, Map<Long, Integer>> slot = new java.util.TreeMap<>();
        List<ByteRange> ranges = new ArrayList<>();
        for (BlobHandle h : group) {
            BlobHandle.Source s = source(h);
            slot.computeIfAbsent(s.offset(), k -> new HashMap<>()).putIfAbsent(s.size(), -1);
        }
        for (var e : slot.entrySet()) {
            for (var sz : e.getValue().entrySet()) {
                sz.setValue(ranges.size());
                ranges.add(new ByteRange(e.getKey(), sz.getKey()));
            }
        }
        return first.io().submit(first.path(), ranges, 0).flatMapIterable(r -> {
            try {
                List<Blob> out = new ArrayList<>(group.size());
                for (BlobHandle h : group) {
                    BlobHandle.Source s = source(h);
                    int k = slot.get(s.offset()).get(s.size());
                    out.add(new Blob(h.index(), h.rowAddress(), ByteBuffer.wrap(r.buffer(k).toByteArray())));
                }
                return out;
            } finally {
                r.release();
            }
        });
    }

    private static BlobHandle.Source source(BlobHandle h) {
        return h.isNull() ? null : h.source();
    }

    /** One handle per requested row, in request order. */
    static Mono<List<BlobHandle>> resolve(Dataset ds, String column, long[] indices) {
        return Mono.defer(() -> {
            Field field = ds.schema().getFields().stream().filter(f -> f.getName().equals(column)).findFirst().orElse(null);
            io.javelin.tx.schema.LanceField lf = field == null ? null : ds.lanceSchema().field(column);
            if (lf == null) {
                return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No top-level column '" + column + "'"));
            }
            boolean v2 = BlobV2.isBlobV2(field);
            if (!v2 && !BlobV2.isLegacyBlob(field)) {
                return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "Column '" + column
                        + "' is not a blob column (neither lance.blob.v2 nor lance-encoding:blob)"));
            }
            BufferAllocator alloc = new RootAllocator();
            return ds.addressesOf(indices)
                    .flatMap(addrs -> Take.take(ds, addrs, List.of(column), alloc, false)
                            .flatMap(root -> {
                                try (root) {
                                    return v2 ? Flux.fromIterable(descriptors(ds, lf, addrs, root.getVector(0)))
                                            .concatMap(d -> d).collectList()
                                            : Mono.just(legacy(ds, addrs, root.getVector(0)));
                                }
                            }))
                    .doFinally(s -> alloc.close());
        }).onErrorMap(e -> Dataset.translate(ds.uri(), ds.version(), e));
    }

    private static List<BlobHandle> legacy(Dataset ds, long[] addrs, FieldVector v) {
        List<BlobHandle> out = new ArrayList<>(addrs.length);
        for (int i = 0; i < addrs.length; i++) {
            if (v.isNull(i)) {
                out.add(new BlobHandle(i, addrs[i], null));
                continue;
            }
            byte[] b = v instanceof LargeVarBinaryVector l ? l.get(i) : ((VarBinaryVector) v).get(i);
            out.add(new BlobHandle(i, addrs[i], new BlobHandle.Source(null, null, 0, b.length, b,
                    "legacy blob of row " + addrs[i])));
        }
        return out;
    }

    /** Handles for blob v2 descriptors (a Mono each: external whole objects need a HEAD for their size). */
    static List<Mono<BlobHandle>> descriptors(Dataset ds, io.javelin.tx.schema.LanceField lf, long[] addrs,
                                                      FieldVector v) {
        if (!(v instanceof StructVector s) || !BlobV2.isDescriptor(s.getField())) {
            throw new CorruptBlobException(ds.uri(), ds.version(), "Blob v2 column " + lf.name() + " read as "
                    + v.getField() + ", not a blob descriptor");
        }
        UInt1Vector kind = (UInt1Vector) s.getChild("kind");
        UInt8Vector pos = (UInt8Vector) s.getChild("position");
        UInt8Vector size = (UInt8Vector) s.getChild("size");
        UInt4Vector id = (UInt4Vector) s.getChild("blob_id");
        VarCharVector uri = (VarCharVector) s.getChild("blob_uri");
        Map<Long, FragmentInfo> frags = new HashMap<>();
        ds.fragments().forEach(f -> frags.put(f.id(), f));
        List<Mono<BlobHandle>> out = new ArrayList<>(addrs.length);
        for (int i = 0; i < addrs.length; i++) {
            int index = i;
            long addr = addrs[i];
            if (s.isNull(i)) {
                out.add(Mono.just(new BlobHandle(i, addr, null)));
                continue;
            }
            int k = kind.get(i) & 0xFF;
            long p = pos.get(i);
            long n = size.get(i);
            if (p < 0 || n < 0 || p > Long.MAX_VALUE - n) {
                throw corrupt(ds, lf, addr, "position " + Long.toUnsignedString(p) + " and size " + Long.toUnsignedString(n)
                        + " overflow");
            }
            switch (k) {
                case BlobV2.INLINE, BlobV2.PACKED, BlobV2.DEDICATED -> {
                    DataFile df = dataFile(ds, lf, frags.get(addr >>> 32), addr);
                    BasePaths.Base base = df.hasBaseId() ? BasePaths.resolve(ds, df.getBaseId()) : null;
                    ObjectStore store = base == null ? ds.objectStore() : base.store();
                    String dir = base == null ? "data/" : base.dir("data/");
                    String path = k == BlobV2.INLINE ? dir + df.getPath()
                            : dir + BlobV2.sidecarPath(df.getPath(), Integer.toUnsignedLong(id.get(i)));
                    if (k == BlobV2.DEDICATED && p != 0) {
                        throw corrupt(ds, lf, addr, "dedicated blob with position " + p);
                    }
                    if (k == BlobV2.INLINE && df.getFileSizeBytes() > 0 && p + n > df.getFileSizeBytes()) {
                        throw corrupt(ds, lf, addr, "inline blob [" + p + ", +" + n + ") past its data file of "
                                + df.getFileSizeBytes() + " bytes");
                    }
                    PageIoScheduler io = base == null ? ds.io() : ds.blobIo(store);
                    String where = path + " [" + p + ", +" + n + ")";
                    out.add(Mono.just(new BlobHandle(index, addr, new BlobHandle.Source(io, path, p, n, null, where))));
                }
                case BlobV2.EXTERNAL -> {
                    String u = new String(uri.get(i), StandardCharsets.UTF_8);
                    if (u.isEmpty()) {
                        throw corrupt(ds, lf, addr, "external blob without a URI");
                    }
                    long baseId = Integer.toUnsignedLong(id.get(i));
                    ObjectStore store;
                    String path;
                    if (baseId != 0) { // a path relative to a registered base path
                        BasePaths.Base b = BasePaths.resolve(ds, (int) baseId);
                        store = b.store();
                        path = b.dir("") + u;
                    } else {
                        int slash = u.lastIndexOf('/');
                        if (slash <= 0 || slash == u.length() - 1) {
                            throw corrupt(ds, lf, addr, "external blob URI '" + u + "' names no object");
                        }
                        store = ds.externalStore(u.substring(0, slash));
                        path = u.substring(slash + 1);
                    }
                    PageIoScheduler io = ds.blobIo(store);
                    if (p == 0 && n == 0) { // the complete object: its size is the object's
                        out.add(store.head(path).map(meta -> new BlobHandle(index, addr,
                                new BlobHandle.Source(io, path, 0, meta.size(), null, u))));
                    } else {
                        out.add(Mono.just(new BlobHandle(index, addr,
                                new BlobHandle.Source(io, path, p, n, null, u + " [" + p + ", +" + n + ")"))));
                    }
                }
                default -> throw corrupt(ds, lf, addr, "unknown blob kind " + k);
            }
        }
        return out;
    }

    private static DataFile dataFile(Dataset ds, io.javelin.tx.schema.LanceField lf, FragmentInfo f, long addr) {
        if (f != null) {
            for (DataFile df : f.fragment().getFilesList()) {
                if (ColumnLayout.holds(df.getFieldsList(), lf)) {
                    return df;
                }
            }
        }
        throw corrupt(ds, lf, addr, "no data file of fragment " + (addr >>> 32) + " holds the column");
    }

    private static CorruptBlobException corrupt(Dataset ds, io.javelin.tx.schema.LanceField lf, long addr, String what) {
        return new CorruptBlobException(ds.uri(), ds.version(), "Corrupt blob descriptor of column " + lf.name()
                + " at row address " + addr + ": " + what);
    }
}
