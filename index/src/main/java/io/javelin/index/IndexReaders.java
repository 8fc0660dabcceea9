package io.javelin.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.index.pb.IVF;
import io.javelin.index.pb.Tensor;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.index.rowid.SearchResult;
import io.javelin.index.scalar.BTreeIndex;
import io.javelin.index.scalar.BitmapIndex;
import io.javelin.index.scalar.BloomFilterIndex;
import io.javelin.index.scalar.SargableQuery;
import io.javelin.index.scalar.ZoneMapIndex;
import io.javelin.index.vector.IvfIndex;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Opens index segments through an {@link IndexFileSource} (the reader adapter) and runs the
 * queries that need further I/O (BTree pages). Loading copies what it needs into immutable heap
 * structures and closes every batch it was handed, on success and on error. Every layout problem
 * surfaces as a {@link CorruptIndexException} in the returned Mono, so the caller can fall back
 * to a scan.
 */
public final class IndexReaders {

    private static final ObjectMapper JSON = new ObjectMapper();

    private IndexReaders() {
    }

    private static <T> Mono<T> using(Mono<VectorSchemaRoot> batch, java.util.function.Function<VectorSchemaRoot, T> f) {
        return Mono.usingWhen(batch, b -> Mono.fromCallable(() -> f.apply(b)), b -> Mono.fromRunnable(b::close));
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    public static Mono<BTreeIndex> openBTree(IndexFileSource src, String resource) {
        return src.schemaMetadata(BTreeIndex.PAGE_LOOKUP_FILE).flatMap(meta ->
                using(src.readAll(BTreeIndex.PAGE_LOOKUP_FILE), b -> BTreeIndex.load(b, meta, resource + "/" + BTreeIndex.PAGE_LOOKUP_FILE)));
    }

    /** Runs a BTree query: the lookup picks pages, each page is read ({@code [p·bs, (p+1)·bs)}) and scanned. */
    public static Mono<SearchResult> searchBTree(BTreeIndex index, IndexFileSource src, SargableQuery q, String resource) {
        return searchBTree(index, src, q, resource, null);
    }

    /** As above, keeping decoded pages in {@code cache} (keyed {@code resource/page_data.lance#p}) when not null. */
    public static Mono<SearchResult> searchBTree(BTreeIndex index, IndexFileSource src, SargableQuery q, String resource, IndexCache cache) {
        String res = resource + "/" + BTreeIndex.PAGE_DATA_FILE;
        java.util.function.IntFunction<Mono<BTreeIndex.DecodedPage>> read = p ->
                src.readRange(BTreeIndex.PAGE_DATA_FILE, index.pageStartRow(p), index.pageStartRow(p + 1))
                        .map(batch -> {
                            try (batch) {
                                return index.decodePage(batch, res);
                            }
                        })
                        .collectList()
                        .map(parts -> {
                            if (parts.size() == 1) {
                                return parts.get(0);
                            }
                            int n = parts.stream().mapToInt(d -> d.ids().length).sum();
                            Object[] v = new Object[n];
                            long[] ids = new long[n];
                            int at = 0;
                            for (BTreeIndex.DecodedPage d : parts) {
                                System.arraycopy(d.values(), 0, v, at, d.ids().length);
                                System.arraycopy(d.ids(), 0, ids, at, d.ids().length);
                                at += d.ids().length;
                            }
                            return new BTreeIndex.DecodedPage(v, ids);
                        });
        return Flux.fromArray(box(index.pagesFor(q)))
                .concatMap(p -> (cache == null ? read.apply(p)
                        : cache.get(res + "#" + p, () -> read.apply(p), BTreeIndex.DecodedPage::bytes))
                        .map(page -> index.searchPage(page, q)))
                .reduce(new RowAddrTreeMap(), RowAddrTreeMap::or)
                .map(rows -> (SearchResult) new SearchResult.Exact(rows));
    }

    private static Integer[] box(int[] a) {
        Integer[] out = new Integer[a.length];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i];
        }
        return out;
    }

    public static Mono<BitmapIndex> openBitmap(IndexFileSource src, String resource) {
        return using(src.readAll(BitmapIndex.FILE), b -> BitmapIndex.load(b, resource + "/" + BitmapIndex.FILE));
    }

    public static Mono<ZoneMapIndex> openZoneMap(IndexFileSource src, String resource) {
        return using(src.readAll(ZoneMapIndex.FILE), b -> ZoneMapIndex.load(b, resource + "/" + ZoneMapIndex.FILE));
    }

    public static Mono<BloomFilterIndex> openBloomFilter(IndexFileSource src, ArrowType columnType, String resource) {
        return using(src.readAll(BloomFilterIndex.FILE), b -> BloomFilterIndex.load(b, columnType, resource + "/" + BloomFilterIndex.FILE));
    }

    private static int bufferIndex(Map<String, String> meta, String key, String resource) {
        String v = meta.get(key);
        CorruptIndexException.check(v != null, resource, "schema metadata lacks %s", key);
        try {
            int i = Integer.parseInt(v.trim());
            CorruptIndexException.check(i >= 1, resource, "%s=%d is not a user global buffer", key, i);
            return i;
        } catch (NumberFormatException e) {
            throw new CorruptIndexException(resource, key + " is not a buffer index: " + v);
        }
    }

    private static IVF parseIvf(MemorySegment s, String resource) {
        try {
            return IVF.parseFrom(bytes(s));
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptIndexException(resource, "IVF protobuf does not parse: " + e.getMessage(), e);
        }
    }

    /** The metadata and global buffers of a vector segment (everything but the rows). */
    public record IvfParts(Map<String, String> indexMeta, IVF indexIvf, Map<String, String> auxMeta, IVF auxIvf, Tensor codebook) {
        public boolean hnsw() {
            return indexMeta.getOrDefault("lance:index", "").contains("IVF_HNSW_");
        }
    }

    public static Mono<IvfParts> ivfParts(IndexFileSource src, String resource) {
        String idxRes = resource + "/index.idx", auxRes = resource + "/auxiliary.idx";
        Mono<Object[]> index = src.schemaMetadata("index.idx").flatMap(meta ->
                src.globalBuffer("index.idx", bufferIndex(meta, "lance:ivf", idxRes)).map(buf -> new Object[] {meta, parseIvf(buf, idxRes)}));
        Mono<Object[]> aux = src.schemaMetadata("auxiliary.idx").flatMap(meta -> {
            Mono<IVF> ivf = src.globalBuffer("auxiliary.idx", bufferIndex(meta, "lance:ivf", auxRes)).map(b -> parseIvf(b, auxRes));
            int codebook = codebookPosition(meta, auxRes);
            Mono<Object> tensor = codebook < 0 ? Mono.just((Object) "none")
                    : src.globalBuffer("auxiliary.idx", codebook).map(b -> {
                        try {
                            return (Object) Tensor.parseFrom(bytes(b));
                        } catch (InvalidProtocolBufferException e) {
                            throw new CorruptIndexException(auxRes, "codebook tensor does not parse", e);
                        }
                    });
            return Mono.zip(ivf, tensor).map(t -> new Object[] {meta, t.getT1(), t.getT2()});
        });
        return Mono.zip(index, aux).map(t -> {
            Object[] i = t.getT1(), a = t.getT2();
            @SuppressWarnings("unchecked")
            Map<String, String> im = (Map<String, String>) i[0], am = (Map<String, String>) a[0];
            return new IvfParts(im, (IVF) i[1], am, (IVF) a[1], a[2] instanceof Tensor x ? x : null);
        });
    }

    /** Opens an IVF_FLAT / IVF_PQ / IVF_SQ / IVF_HNSW_* segment, loading every partition. */
    public static Mono<IvfIndex> openIvf(IndexFileSource src, String resource) {
        return ivfParts(src, resource).flatMap(pp -> {
            if (!pp.hnsw()) {
                return using(src.readAll("auxiliary.idx"),
                        rows -> IvfIndex.load(pp.indexMeta(), pp.indexIvf(), pp.auxMeta(), pp.auxIvf(), pp.codebook(), rows, resource));
            }
            return Mono.usingWhen(src.readAll("index.idx"),
                    graph -> using(src.readAll("auxiliary.idx"), rows -> IvfIndex.load(pp.indexMeta(), pp.indexIvf(), graph,
                            pp.auxMeta(), pp.auxIvf(), pp.codebook(), rows, resource)),
                    graph -> Mono.fromRunnable(graph::close));
        });
    }

    /** {@code codebook_position} of a PQ {@code storage_metadata}, or -1 for other quantizers. */
    static int codebookPosition(Map<String, String> meta, String resource) {
        String list = meta.get("storage_metadata");
        if (list == null) {
            return -1;
        }
        try {
            JsonNode arr = JSON.readTree(list);
            if (!arr.isArray() || arr.isEmpty()) {
                return -1;
            }
            JsonNode s = JSON.readTree(arr.get(0).asText());
            return s.has("codebook_position") ? s.get("codebook_position").asInt() : -1;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CorruptIndexException(resource, "storage_metadata is not JSON: " + list, e);
        }
    }
}
