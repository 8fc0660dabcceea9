package io.javelin.index.fts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.index.CorruptIndexException;
import io.javelin.index.IndexFileSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Opens an inverted-index segment in the partitioned layout lance-core 7.0.0 writes:
 * {@code metadata.lance} (schema metadata {@code partitions} = JSON ids, {@code params} = tokenizer
 * JSON, {@code token_set_format} = {@code fst} or {@code arrow} (absent = arrow),
 * {@code posting_tail_codec} = {@code fixed32_v1} (absent = the same)), then per partition the token
 * dictionary and document table. Anything else (posting v2 codecs, legacy unpartitioned layout) is a
 * {@link CorruptIndexException} naming what was found.
 */
public final class InvertedIndexReader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private InvertedIndexReader() {
    }

    public static Mono<InvertedIndex> open(IndexFileSource src, String resource) {
        String metaRes = resource + "/" + InvertedIndexFiles.METADATA;
        return src.schemaMetadata(InvertedIndexFiles.METADATA).flatMap(meta -> {
            String params = meta.get("params");
            CorruptIndexException.check(params != null, metaRes, "metadata lacks params");
            FtsParams p = FtsParams.parse(params, metaRes);
            String codec = meta.getOrDefault("posting_tail_codec", "fixed32_v1");
            CorruptIndexException.check(codec.equals("fixed32_v1"), metaRes, "posting tail codec %s is not supported (fixed32_v1 is)", codec);
            String fv = meta.get("format_version");
            CorruptIndexException.check(fv == null || fv.equals("1"), metaRes, "inverted list format version %s is not supported (1 is)", fv);
            String tokenFormat = meta.getOrDefault("token_set_format", "arrow");
            CorruptIndexException.check(tokenFormat.equals("fst") || tokenFormat.equals("arrow"), metaRes, "token set format %s", tokenFormat);
            List<Long> ids = partitions(meta.get("partitions"), metaRes);
            return Flux.fromIterable(ids)
                    .concatMap(id -> partition(src, id, tokenFormat, resource))
                    .collectList()
                    .map(parts -> new InvertedIndex(p, parts, resource));
        });
    }

    static List<Long> partitions(String json, String res) {
        CorruptIndexException.check(json != null, res, "metadata lacks partitions");
        try {
            JsonNode n = JSON.readTree(json);
            CorruptIndexException.check(n != null && n.isArray(), res, "partitions is not a JSON array: %s", json);
            List<Long> out = new ArrayList<>();
            for (JsonNode x : n) {
                CorruptIndexException.check(x.canConvertToLong() && x.asLong() >= 0, res, "partition id %s", x);
                out.add(x.asLong());
            }
            return out;
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new CorruptIndexException(res, "partitions do not parse: " + json, e);
        }
    }

    private static <T> Mono<T> using(Mono<VectorSchemaRoot> batch, java.util.function.Function<VectorSchemaRoot, T> f) {
        return Mono.usingWhen(batch, b -> Mono.fromCallable(() -> f.apply(b)), b -> Mono.fromRunnable(b::close));
    }

    private static Mono<DiskPartition> partition(IndexFileSource src, long id, String tokenFormat, String resource) {
        String tf = InvertedIndexFiles.tokens(id), df = InvertedIndexFiles.docs(id);
        Mono<Map<String, Integer>> tokens = using(src.readAll(tf), b -> tokenFormat.equals("fst")
                ? fstTokens(b, resource + "/" + tf) : arrowTokens(b, resource + "/" + tf));
        Mono<Object[]> docs = using(src.readAll(df), b -> docs(b, resource + "/" + df));
        return Mono.zip(tokens, docs).map(t -> new DiskPartition(id, t.getT1(), (long[]) t.getT2()[0], (int[]) t.getT2()[1], src, resource));
    }

    private static <V> V column(VectorSchemaRoot b, String name, Class<V> type, String res) {
        FieldVector v = b.getSchema().findField(name) == null ? null : b.getVector(name);
        CorruptIndexException.check(type.isInstance(v), res, "column %s is missing or not %s", name, type.getSimpleName());
        return type.cast(v);
    }

    static Map<String, Integer> fstTokens(VectorSchemaRoot b, String res) {
        LargeVarBinaryVector fst = column(b, InvertedIndexFiles.TOKEN_FST, LargeVarBinaryVector.class, res);
        CorruptIndexException.check(b.getRowCount() == 1 && !fst.isNull(0), res, "token fst file has %d rows", b.getRowCount());
        List<FstTokenMap.Entry> entries = FstTokenMap.decode(fst.get(0), res);
        Map<String, Integer> out = new HashMap<>(entries.size() * 2);
        for (FstTokenMap.Entry e : entries) {
            CorruptIndexException.check(e.id() >= 0 && e.id() < entries.size(), res, "token id %d of %d tokens", e.id(), entries.size());
            out.put(e.token(), (int) e.id());
        }
        return out;
    }

    static Map<String, Integer> arrowTokens(VectorSchemaRoot b, String res) {
        VarCharVector tok = column(b, InvertedIndexFiles.TOKEN, VarCharVector.class, res);
        UInt4Vector ids = column(b, InvertedIndexFiles.TOKEN_ID, UInt4Vector.class, res);
        Map<String, Integer> out = new HashMap<>(b.getRowCount() * 2);
        for (int i = 0; i < b.getRowCount(); i++) {
            CorruptIndexException.check(!tok.isNull(i) && !ids.isNull(i), res, "null token at row %d", i);
            int id = ids.get(i);
            CorruptIndexException.check(id >= 0 && id < b.getRowCount(), res, "token id %d of %d tokens", id, b.getRowCount());
            out.put(new String(tok.get(i), java.nio.charset.StandardCharsets.UTF_8), id);
        }
        return out;
    }

    static Object[] docs(VectorSchemaRoot b, String res) {
        UInt8Vector rows = column(b, InvertedIndexFiles.ROW_ID, UInt8Vector.class, res);
        UInt4Vector n = column(b, InvertedIndexFiles.NUM_TOKENS, UInt4Vector.class, res);
        int count = b.getRowCount();
        long[] r = new long[count];
        int[] t = new int[count];
        for (int i = 0; i < count; i++) {
            CorruptIndexException.check(!rows.isNull(i) && !n.isNull(i), res, "null document at row %d", i);
            r[i] = rows.get(i);
            t[i] = n.get(i);
            CorruptIndexException.check(t[i] >= 0, res, "document %d has %d tokens", i, Integer.toUnsignedLong(t[i]));
        }
        return new Object[] {r, t};
    }
}
