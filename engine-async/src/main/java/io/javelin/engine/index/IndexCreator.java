package io.javelin.engine.index;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceFileWriter;
import io.javelin.encoding.writer.WriteOptions;
import io.javelin.engine.Dataset;
import io.javelin.engine.InvalidScanException;
import io.javelin.index.IndexFiles;
import io.javelin.index.IndexType;
import io.javelin.index.pb.BTreeIndexDetails;
import io.javelin.index.pb.BitmapIndexDetails;
import io.javelin.index.pb.HnswParameters;
import io.javelin.index.pb.LabelListIndexDetails;
import io.javelin.index.pb.VectorIndexDetails;
import io.javelin.index.scalar.BTreeIndex;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.index.vector.DistanceType;
import io.javelin.index.vector.Hnsw;
import io.javelin.index.vector.IvfIndex;
import io.javelin.objectstore.ObjectStore;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.IndexFile;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.transaction.Transactions;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.BaseListVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Builds an index over every live row of a dataset version and commits it as a CreateIndex
 * transaction: the column is scanned with row addresses, the index built in memory (training and
 * encoding on {@code boundedElastic}: k-means is long-running CPU work), its files written as Lance 2.1
 * files under {@code _indices/{uuid}/} exactly as Lance 7.0.0 lays them out, and an
 * {@code IndexMetadata} (fields, dataset version, fragment bitmap, typed details, index version,
 * created_at, files with sizes) committed. Fragments appended later are simply not in the bitmap:
 * queries search them directly.
 */
public final class IndexCreator {

    private static final String ROW_ADDR = "_rowaddr";

    private IndexCreator() {
    }

    public static Mono<Dataset> create(Dataset ds, List<String> columns, IndexKind kind, IndexParams params) {
        return Mono.defer(() -> {
            if (columns == null || columns.size() != 1) {
                return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "An index is built on exactly one column, got "
                        + columns));
            }
            String column = columns.get(0);
            Field field = ds.schema().getFields().stream().filter(f -> f.getName().equals(column)).findFirst().orElse(null);
            if (field == null) {
                return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No column '" + column + "'"));
            }
            String name = params.name() != null ? params.name() : column + "_idx";
            List<IndexMetadata> removed = new ArrayList<>();
            for (IndexInfo i : IndexCatalog.list(ds)) {
                if (i.name().equals(name)) {
                    if (!params.replace()) {
                        return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "Index '" + name
                                + "' already exists (use replace)"));
                    }
                    removed.add(i.metadata());
                }
            }
            checkType(ds, field, kind);
            return build(ds, column, field, kind, params, name)
                    .flatMap(im -> ds.commit(Transactions.createIndex(ds.version(), List.of(im), removed)));
        });
    }

    /**
     * Builds a segment named {@code name} over every fragment of {@code ds} and writes its files; the
     * returned manifest entry is not committed (create and optimize commit it).
     */
    static Mono<IndexMetadata> build(Dataset ds, String column, Field field, IndexKind kind, IndexParams params, String name) {
        return Mono.defer(() -> {
            UUID uuid = UUID.randomUUID();
            RoaringBitmap frags = new RoaringBitmap();
            for (FragmentInfo f : ds.fragments()) {
                frags.add((int) f.id());
            }
            // Lance indexes _rowid (the stable id when enabled); zone indexes always hold row addresses
            boolean byRowId = ds.hasStableRowIds() && kind != IndexKind.ZONEMAP && kind != IndexKind.BLOOM_FILTER;
            // usingWhen: batches close before the allocator, and both before completion propagates
            return Mono.usingWhen(Mono.fromCallable(RootAllocator::new),
                    alloc -> Mono.usingWhen(collect(ds, column, field, byRowId, alloc),
                            data -> Mono.just(data).publishOn(Schedulers.boundedElastic())
                                    .flatMap(d -> write(ds.objectStore(), uuid, kind, params, d, alloc)),
                            data -> Mono.fromRunnable(data::close)),
                    alloc -> Mono.fromRunnable(alloc::close))
                    .map(built -> {
                        IndexMetadata.Builder im = IndexMetadata.newBuilder()
                                .setUuid(io.javelin.tx.pb.UUID.newBuilder().setUuid(ByteString.copyFrom(IndexFiles.uuidToBytes(uuid))))
                                .addFields(ds.lanceSchema().field(column).id())
                                .setName(name)
                                .setDatasetVersion(ds.version())
                                .setFragmentBitmap(ByteString.copyFrom(serialize(frags)))
                                .setIndexDetails(built.details())
                                .setIndexVersion(built.indexVersion())
                                .setCreatedAt(System.currentTimeMillis());
                        built.files().forEach(im::addFiles);
                        return im.build();
                    });
        });
    }

    /** Removes every segment named {@code name} (a CreateIndex with only removed indices, as Lance's drop_index). */
    public static Mono<Dataset> drop(Dataset ds, String name) {
        return Mono.defer(() -> {
            List<IndexMetadata> removed = IndexCatalog.list(ds).stream().filter(i -> i.name().equals(name)).map(IndexInfo::metadata).toList();
            if (removed.isEmpty()) {
                return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No index named '" + name + "'"));
            }
            return ds.commit(Transactions.createIndex(ds.version(), List.of(), removed));
        });
    }

    private static void checkType(Dataset ds, Field f, IndexKind kind) {
        ArrowType t = f.getType();
        boolean ok = switch (kind) {
            case BTREE, BITMAP, ZONEMAP, BLOOM_FILTER -> !(t instanceof ArrowType.List || t instanceof ArrowType.LargeList || t instanceof ArrowType.FixedSizeList
                    || t instanceof ArrowType.Struct || t instanceof ArrowType.Map);
            case LABEL_LIST -> t instanceof ArrowType.List || t instanceof ArrowType.LargeList;
            case INVERTED -> t instanceof ArrowType.Utf8 || t instanceof ArrowType.LargeUtf8;
            default -> t instanceof ArrowType.FixedSizeList && f.getChildren().get(0).getType()
                    .equals(new ArrowType.FloatingPoint(org.apache.arrow.vector.types.FloatingPointPrecision.SINGLE));
        };
        if (!ok) {
            throw new InvalidScanException(ds.uri(), ds.version(), "Cannot build a " + kind + " index on column '" + f.getName()
                    + "' of type " + t + (kind.isVector() ? " (vector indexes need fixed_size_list<float32>)" : ""));
        }
    }

    /** Every live value of the column and its row address, concatenated. */
    record Collected(FieldVector values, long[] rows, int count) implements AutoCloseable {
        @Override
        public void close() {
            values.close();
        }
    }

    private static Mono<Collected> collect(Dataset ds, String column, Field field, boolean byRowId, BufferAllocator alloc) {
        return Mono.defer(() -> {
            FieldVector all = field.createVector(alloc);
            long[][] rows = {new long[1024]};
            int[] n = {0};
            String idColumn = byRowId ? "_rowid" : ROW_ADDR;
            return (byRowId ? ds.scanner().columns(column).withRowId(true) : ds.scanner().columns(column).withRowAddress(true)).scan(alloc)
                    .doOnNext(b -> {
                        try (b) {
                            FieldVector v = b.getVector(column);
                            UInt8Vector addr = (UInt8Vector) b.getVector(idColumn);
                            int m = b.getRowCount();
                            if (n[0] + m > rows[0].length) {
                                rows[0] = java.util.Arrays.copyOf(rows[0], Math.max(rows[0].length * 2, n[0] + m));
                            }
                            for (int i = 0; i < m; i++) {
                                all.copyFromSafe(i, n[0] + i, v);
                                rows[0][n[0] + i] = addr.get(i);
                            }
                            n[0] += m;
                            all.setValueCount(n[0]);
                        }
                    })
                    .then(Mono.fromCallable(() -> {
                        all.setValueCount(n[0]);
                        return new Collected(all, java.util.Arrays.copyOf(rows[0], n[0]), n[0]);
                    }))
                    .doOnError(e -> all.close())
                    .doOnCancel(all::close);
        });
    }

    /** What was written: files with sizes, the typed details and their index_version. */
    record Built(List<IndexFile> files, Any details, int indexVersion) {
    }

    private static Mono<Built> write(ObjectStore store, UUID uuid, IndexKind kind, IndexParams params, Collected data,
                                     BufferAllocator alloc) {
        String dir = IndexFiles.directory(uuid);
        return switch (kind) {
            case BTREE -> Mono.usingWhen(Mono.fromCallable(() -> BTreeIndex.build(data.values(), data.rows(), alloc)),
                            b -> Flux.concat(
                                            file(store, dir, BTreeIndex.PAGE_LOOKUP_FILE, b.pageLookup(), List.of()),
                                            file(store, dir, BTreeIndex.PAGE_DATA_FILE, b.pageData(), List.of()))
                                    .collectList(),
                            b -> Mono.fromRunnable(b::close))
                    .map(files -> new Built(files, IndexType.pack(BTreeIndexDetails.getDefaultInstance()), IndexType.BTREE.writeVersion()));
            case BITMAP, LABEL_LIST -> Mono.fromCallable(() -> kind == IndexKind.BITMAP
                            ? BitmapIndex.build(data.values(), data.rows())
                            : BitmapIndex.buildLabelList((BaseListVector) data.values(), data.rows()))
                    .flatMap(b -> Mono.usingWhen(Mono.fromCallable(() -> b.toBatch(alloc)),
                            root -> file(store, dir, BitmapIndex.FILE, root, List.of()), root -> Mono.fromRunnable(root::close)))
                    .map(f -> kind == IndexKind.BITMAP
                            ? new Built(List.of(f), IndexType.pack(BitmapIndexDetails.getDefaultInstance()), IndexType.BITMAP.writeVersion())
                            : new Built(List.of(f), IndexType.pack(LabelListIndexDetails.getDefaultInstance()),
                            IndexType.LABEL_LIST.writeVersion()));
            case INVERTED -> FtsIndexFiles.write(store, dir, params.ftsOrDefault(), data.values(), data.rows(), alloc)
                    .map(files -> new Built(files, IndexType.pack(FtsIndexFiles.details(params.ftsOrDefault())), IndexType.INVERTED.writeVersion()));
            case ZONEMAP, BLOOM_FILTER -> Mono.usingWhen(Mono.fromCallable(() -> ZoneIndexes.build(kind, data.values(), data.rows(), alloc)),
                    z -> file(store, dir, z.file(), z.batch(), List.of()).map(f -> new Built(List.of(f), z.details(), z.indexVersion())),
                    z -> Mono.fromRunnable(() -> z.batch().close()));
            default -> Mono.fromCallable(() -> buildVector(kind, params, data))
                    .flatMap(ivf -> vectorFiles(store, dir, ivf, alloc)
                            .map(files -> new Built(files, IndexType.pack(vectorDetails(kind, params, ivf)),
                                    IndexType.VECTOR.writeVersion())));
        };
    }

    /** Writes {@code index.idx} and {@code auxiliary.idx} of a vector segment (also used by compaction's remap). */
    static Mono<List<IndexFile>> vectorFiles(ObjectStore store, String dir, IvfIndex ivf, BufferAllocator alloc) {
        return Mono.defer(() -> {
            VectorSchemaRoot index = ivf.indexFileBatch(alloc);
            VectorSchemaRoot aux = ivf.auxiliaryBatch(alloc);
            List<byte[]> auxBuffers = new ArrayList<>();
            auxBuffers.add(ivf.auxiliaryFileIvf().toByteArray());
            if (ivf.kind() == IvfIndex.Kind.PQ) {
                auxBuffers.add(ivf.codebookTensor().toByteArray());
            }
            return Flux.concat(
                            file(store, dir, "index.idx", index, List.of(ivf.indexFileIvf().toByteArray())),
                            file(store, dir, "auxiliary.idx", aux, auxBuffers))
                    .collectList()
                    // closed before completion propagates (the allocator closes right after)
                    .doOnTerminate(() -> {
                        index.close();
                        aux.close();
                    })
                    .doOnCancel(() -> {
                        index.close();
                        aux.close();
                    });
        });
    }

    private static IvfIndex buildVector(IndexKind kind, IndexParams params, Collected data) {
        FixedSizeListVector fsl = (FixedSizeListVector) data.values();
        int dim = fsl.getListSize();
        org.apache.arrow.vector.Float4Vector items = (org.apache.arrow.vector.Float4Vector) fsl.getDataVector();
        // null vectors are not indexed (Lance skips them too)
        int n = 0;
        float[] flat = new float[data.count() * dim];
        long[] rows = new long[data.count()];
        for (int i = 0; i < data.count(); i++) {
            if (fsl.isNull(i)) {
                continue;
            }
            for (int j = 0; j < dim; j++) {
                int at = i * dim + j;
                flat[n * dim + j] = items.isNull(at) ? Float.NaN : items.get(at);
            }
            rows[n++] = data.rows()[i];
        }
        if (n == 0) {
            throw new IllegalArgumentException("No non-null vectors to index");
        }
        if (n < flat.length / Math.max(1, dim)) {
            flat = java.util.Arrays.copyOf(flat, n * dim);
            rows = java.util.Arrays.copyOf(rows, n);
        }
        DistanceType metric = params.metric() == null ? DistanceType.L2 : DistanceType.parse(params.metric());
        int partitions = Math.min(params.partitionsFor(kind, n), n);
        IvfIndex.BuildParams bp = switch (kind) {
            case IVF_PQ -> IvfIndex.BuildParams.ivfPq(partitions, params.subVectorsFor(dim), metric);
            case IVF_SQ, IVF_HNSW_SQ -> IvfIndex.BuildParams.ivfSq(partitions, metric);
            default -> IvfIndex.BuildParams.ivfFlat(partitions, metric);
        };
        if (kind == IndexKind.IVF_PQ && n < 256) {
            throw new IllegalArgumentException("IVF_PQ needs at least 256 rows to train the codebook, got " + n);
        }
        if (params.numBits() > 0 && kind == IndexKind.IVF_PQ) {
            bp = bp.withNumBits(params.numBits());
        }
        if (params.maxIters() > 0) {
            bp = bp.withMaxIters(params.maxIters());
        }
        if (params.sampleRate() > 0) {
            bp = bp.withSampleRate(params.sampleRate());
        }
        if (kind.isHnsw()) {
            Hnsw.Params h = Hnsw.Params.LANCE_DEFAULT;
            if (params.hnswM() > 0 || params.efConstruction() > 0) {
                h = new Hnsw.Params(h.maxLevel(), params.hnswM() > 0 ? params.hnswM() : h.m(),
                        params.efConstruction() > 0 ? params.efConstruction() : h.efConstruction(), h.seed());
            }
            bp = bp.withHnsw(h);
        }
        return IvfIndex.build(flat, rows, n, dim, bp);
    }

    private static VectorIndexDetails vectorDetails(IndexKind kind, IndexParams params, IvfIndex ivf) {
        VectorIndexDetails.Builder d = VectorIndexDetails.newBuilder().setMetricType(ivf.distanceType().proto());
        switch (ivf.kind()) {
            case PQ -> d.setPq(VectorIndexDetails.ProductQuantization.newBuilder()
                    .setNumBits(ivf.pq().numBits()).setNumSubVectors(ivf.pq().numSubVectors()));
            case SQ -> d.setSq(VectorIndexDetails.ScalarQuantization.newBuilder().setNumBits(8));
            case FLAT -> d.setFlat(VectorIndexDetails.FlatCompression.getDefaultInstance());
        }
        if (kind.isHnsw()) {
            Hnsw.Params h = Hnsw.Params.LANCE_DEFAULT;
            d.setHnswIndexConfig(HnswParameters.newBuilder()
                    .setMaxConnections(params.hnswM() > 0 ? params.hnswM() : h.m())
                    .setConstructionEf(params.efConstruction() > 0 ? params.efConstruction() : h.efConstruction())
                    .setMaxLevel(h.maxLevel()));
        }
        d.setTargetNumPartitions(ivf.ivf().numPartitions());
        return d.build();
    }

    static Mono<IndexFile> file(ObjectStore store, String dir, String name, VectorSchemaRoot root, List<byte[]> buffers) {
        return LanceFileWriter.write(Flux.just(root), root.getSchema(), store, dir + name, WriteOptions.of(LanceFileVersion.V2_1), buffers)
                .map(r -> IndexFile.newBuilder().setPath(name).setSizeBytes(r.bytes()).build());
    }

    static byte[] serialize(RoaringBitmap rb) {
        rb.removeRunCompression(); // Lance 7 writes portable Roaring without run containers
        ByteBuffer buf = ByteBuffer.allocate(rb.serializedSizeInBytes());
        rb.serialize(buf);
        return buf.array();
    }
}
