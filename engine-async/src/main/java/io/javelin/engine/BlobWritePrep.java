package io.javelin.engine;

import io.javelin.encoding.writer.BlobV2Columns;
import io.javelin.objectstore.ObjectStore;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The blob v2 side of writing one data file: validates the logical rows (spec 001 "Blob Columns"),
 * places each payload (dedicated first: {@code size > dedicated threshold} gets its own {@code .blob}
 * file, then {@code size > inline threshold} goes to the rolling packed sidecar, the rest stays inline)
 * and turns the column into the prepared shape the file writer encodes. Sidecars are named after the
 * data file ({@code data/<stem>/<bit-reversed id>.blob}) and written once the data file is complete, so a
 * file's packed and dedicated payloads are held in memory until then (a known limit).
 */
final class BlobWritePrep {

    static final long DEFAULT_INLINE = 64 * 1024;
    static final long DEFAULT_DEDICATED = 4L * 1024 * 1024;

    private final ObjectStore store;
    private final String uri;
    private final String stem;
    private final BlobWriteOptions options;
    private final List<Integer> columns;
    private final long[] inline;
    private final long[] dedicated;
    private final long packLimit;
    private long nextId = 1;
    private long packId = -1;
    private ByteArrayOutputStream pack;
    /** Sidecars filled so far, written by {@link #finish()}. */
    private final List<Map.Entry<String, byte[]>> pending = new ArrayList<>();

    private BlobWritePrep(ObjectStore store, String uri, String dataFileName, Schema schema, List<Integer> columns,
                          BlobWriteOptions options) {
        this.store = store;
        this.uri = uri;
        this.stem = dataFileName.substring(0, dataFileName.length() - ".lance".length());
        this.options = options;
        this.columns = columns;
        this.inline = new long[columns.size()];
        this.dedicated = new long[columns.size()];
        long packMeta = 0;
        for (int k = 0; k < columns.size(); k++) {
            Field f = schema.getFields().get(columns.get(k));
            inline[k] = threshold(f, BlobV2.INLINE_THRESHOLD_KEY, DEFAULT_INLINE, true);
            dedicated[k] = threshold(f, BlobV2.DEDICATED_THRESHOLD_KEY, DEFAULT_DEDICATED, false);
            packMeta = Math.max(packMeta, threshold(f, "lance-encoding:blob-pack-file-size-threshold", 0, true));
        }
        this.packLimit = options.packFileSizeThreshold() > 0 ? options.packFileSizeThreshold()
                : packMeta > 0 ? packMeta : BlobWriteOptions.DEFAULT_PACK_FILE_SIZE;
    }

    /** Null when {@code schema} has no blob v2 column. */
    static BlobWritePrep of(ObjectStore store, String uri, String dataFileName, Schema schema, BlobWriteOptions options) {
        List<Integer> cols = new ArrayList<>();
        for (int i = 0; i < schema.getFields().size(); i++) {
            if (BlobV2.isBlobV2(schema.getFields().get(i))) {
                cols.add(i);
            }
        }
        return cols.isEmpty() ? null : new BlobWritePrep(store, uri, dataFileName, schema, cols, options);
    }

    /**
     * Checks the blob columns of {@code schema} for a dataset of {@code version}: blob v2 needs format 2.2+,
     * legacy blob metadata is refused there (spec 001's table), shapes must be minimal or complete.
     */
    static void validateSchema(String uri, Schema schema, io.javelin.encoding.writer.LanceFileVersion version) {
        boolean v22 = version.ordinal() >= io.javelin.encoding.writer.LanceFileVersion.V2_2.ordinal();
        for (Field f : schema.getFields()) {
            validateField(uri, f, f.getName(), v22, true);
        }
    }

    private static void validateField(String uri, Field f, String path, boolean v22, boolean top) {
        if (BlobV2.isLegacyBlob(f) && v22) {
            throw new InvalidScanException(uri, -1, "Field '" + path + "' has legacy blob metadata (lance-encoding:blob), "
                    + "which data_storage_version 2.2+ does not support for writes; use a lance.blob.v2 field");
        }
        if (BlobV2.isBlobV2(f)) {
            if (!v22) {
                throw new InvalidScanException(uri, -1, "Blob v2 field '" + path + "' needs data_storage_version 2.2 or later");
            }
            if (!top) {
                throw new InvalidScanException(uri, -1, "Blob v2 field '" + path + "' is nested; Javelin writes top-level blob v2 columns only");
            }
            List<String> names = f.getChildren().stream().map(Field::getName).toList();
            boolean minimal = names.equals(List.of("data", "uri"));
            boolean complete = names.equals(List.of("data", "uri", "position", "size"));
            if (!minimal && !complete) {
                throw new InvalidScanException(uri, -1, "Blob v2 field '" + path + "' must be struct<data: large_binary, uri: utf8"
                        + "[, position: uint64, size: uint64]>, got children " + names);
            }
            expect(uri, path, f.getChildren().get(0), ArrowType.LargeBinary.INSTANCE);
            expect(uri, path, f.getChildren().get(1), ArrowType.Utf8.INSTANCE);
            if (complete) {
                expect(uri, path, f.getChildren().get(2), new ArrowType.Int(64, false));
                expect(uri, path, f.getChildren().get(3), new ArrowType.Int(64, false));
            }
            return;
        }
        for (Field c : f.getChildren()) {
            validateField(uri, c, path + "." + c.getName(), v22, false);
        }
    }

    private static void expect(String uri, String path, Field c, ArrowType t) {
        if (!c.getType().equals(t)) {
            throw new InvalidScanException(uri, -1, "Blob v2 field '" + path + "." + c.getName() + "' must be " + t + ", got " + c.getType());
        }
    }

    private long threshold(Field f, String key, long dflt, boolean allowZero) {
        String v = BlobV2.metadata(f).get(key);
        if (v == null) {
            return dflt;
        }
        long t;
        try {
            t = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new InvalidScanException(uri, -1, "Invalid blob threshold metadata " + key + "=\"" + v + "\" for field '"
                    + f.getName() + "'; expected a non-negative integer");
        }
        if (t < 0 || (!allowZero && t == 0)) {
            throw new InvalidScanException(uri, -1, "Invalid blob threshold metadata " + key + "=\"" + v + "\" for field '"
                    + f.getName() + "'; expected a " + (allowZero ? "non-negative" : "positive") + " integer");
        }
        return t;
    }

    /**
     * {@code incoming} for an append to a dataset whose schema is {@code stored}: blob v2 thresholds are the
     * stored ones; an append that states a different threshold for an existing column is refused.
     */
    static Schema withStoredThresholds(String uri, Schema stored, Schema incoming) {
        List<Field> out = new ArrayList<>(incoming.getFields().size());
        for (Field f : incoming.getFields()) {
            Field s = stored.getFields().stream().filter(x -> x.getName().equals(f.getName())).findFirst().orElse(null);
            if (s == null || !BlobV2.isBlobV2(s)) {
                out.add(f);
                continue;
            }
            Map<String, String> md = new java.util.LinkedHashMap<>(BlobV2.metadata(f));
            for (String key : List.of(BlobV2.INLINE_THRESHOLD_KEY, BlobV2.DEDICATED_THRESHOLD_KEY)) {
                String have = BlobV2.metadata(s).get(key);
                String want = md.get(key);
                if (want != null && !want.equals(have)) {
                    throw new InvalidScanException(uri, -1, "Blob v2 column '" + f.getName() + "' stores " + key + "="
                            + (have == null ? "(default)" : have) + "; an append cannot change it to " + want);
                }
                if (have != null) {
                    md.put(key, have);
                }
            }
            out.add(new Field(f.getName(), new org.apache.arrow.vector.types.pojo.FieldType(f.isNullable(), f.getType(),
                    f.getDictionary(), md), f.getChildren()));
        }
        return new Schema(out, incoming.getCustomMetadata());
    }

    /** The schema the file writer sees: blob v2 columns in their prepared shape. */
    static Schema preparedSchema(Schema schema) {
        List<Field> out = new ArrayList<>(schema.getFields().size());
        for (Field f : schema.getFields()) {
            out.add(BlobV2.isBlobV2(f) ? BlobV2Columns.prepared(f.getName(), f.isNullable(), f.getMetadata()) : f);
        }
        return new Schema(out, schema.getCustomMetadata());
    }

    /** {@code batch} (closed here) with its blob v2 columns prepared; sidecars filled by then are written first. */
    Mono<VectorSchemaRoot> prepare(VectorSchemaRoot batch, Schema prepared) {
        return Mono.defer(() -> {
            List<Map.Entry<String, byte[]>> puts = new ArrayList<>();
            List<FieldVector> vectors = new ArrayList<>(batch.getFieldVectors());
            List<FieldVector> made = new ArrayList<>();
            int n = batch.getRowCount();
            try {
                for (int k = 0; k < columns.size(); k++) {
                    int c = columns.get(k);
                    FieldVector pv = prepared.getFields().get(c).createVector(batch.getFieldVectors().get(c).getAllocator());
                    made.add(pv);
                    convert(k, (StructVector) batch.getVector(c), (StructVector) pv, n, puts);
                    vectors.set(c, pv);
                }
            } catch (RuntimeException e) {
                made.forEach(FieldVector::close);
                batch.close();
                return Mono.error(e);
            }
            // the other vectors' buffers move into the new root; the input (blob columns included) is closed
            for (int c = 0; c < vectors.size(); c++) {
                if (!columns.contains(c)) {
                    FieldVector v = vectors.get(c);
                    org.apache.arrow.vector.util.TransferPair tp = v.getTransferPair(v.getAllocator());
                    tp.transfer();
                    vectors.set(c, (FieldVector) tp.getTo());
                }
            }
            batch.close();
            pending.addAll(puts);
            return Mono.just(new VectorSchemaRoot(prepared.getFields(), vectors, n));
        });
    }

    /**
     * Writes the sidecars of the file (after its last batch): kept out of the batch pipeline, whose
     * demand drives the data file's streaming put (a sidecar put inside it was seen to stall the write).
     */
    Mono<Void> finish() {
        return Mono.defer(() -> {
            flushPack(pending);
            List<Map.Entry<String, byte[]>> puts = new ArrayList<>(pending);
            pending.clear();
            return Flux.fromIterable(puts).concatMap(p -> store.put(p.getKey(), p.getValue()), 1).then();
        });
    }

    private String sidecar(long id) {
        return "data/" + BlobV2.sidecarPath(stem + ".lance", id);
    }

    private void flushPack(List<Map.Entry<String, byte[]>> puts) {
        if (pack != null && pack.size() > 0) {
            puts.add(Map.entry(sidecar(packId), pack.toByteArray()));
        }
        pack = null;
        packId = -1;
    }

    private void convert(int k, StructVector in, StructVector out, int n, List<Map.Entry<String, byte[]>> puts) {
        String name = in.getField().getName();
        LargeVarBinaryVector data = (LargeVarBinaryVector) in.getChild("data");
        VarCharVector uriV = (VarCharVector) in.getChild("uri");
        UInt8Vector posV = in.getChild("position") instanceof UInt8Vector p ? p : null;
        UInt8Vector sizeV = in.getChild("size") instanceof UInt8Vector s ? s : null;
        out.allocateNew();
        UInt1Vector kind = (UInt1Vector) out.getChild("kind");
        LargeVarBinaryVector odata = (LargeVarBinaryVector) out.getChild("data");
        UInt8Vector opos = (UInt8Vector) out.getChild("position");
        UInt8Vector osize = (UInt8Vector) out.getChild("size");
        UInt4Vector oid = (UInt4Vector) out.getChild("blob_id");
        VarCharVector ouri = (VarCharVector) out.getChild("blob_uri");
        for (int i = 0; i < n; i++) {
            odata.setNull(i);
            ouri.setNull(i);
            kind.setSafe(i, 0);
            opos.setSafe(i, 0);
            osize.setSafe(i, 0);
            oid.setSafe(i, 0);
            if (in.isNull(i)) {
                out.setNull(i);
                continue;
            }
            out.setIndexDefined(i);
            boolean hasData = !data.isNull(i);
            boolean hasUri = !uriV.isNull(i);
            boolean hasPos = posV != null && !posV.isNull(i);
            boolean hasSize = sizeV != null && !sizeV.isNull(i);
            if (hasData == hasUri) {
                throw invalid(name, i, "must set exactly one of data and uri");
            }
            if (hasPos != hasSize) {
                throw invalid(name, i, "position and size must both be set or both be null");
            }
            if (hasPos && !hasUri) {
                throw invalid(name, i, "a range (position, size) requires uri");
            }
            if (hasSize && sizeV.get(i) == 0) {
                throw invalid(name, i, "an explicit range must have size > 0 (use inline b\"\" for an empty blob)");
            }
            if (hasUri) {
                String u = new String(uriV.get(i), StandardCharsets.UTF_8);
                if (!options.allowExternalBlobOutsideBases()) {
                    throw new InvalidScanException(uri, -1, "External blob URI '" + u + "' in field '" + name
                            + "' is outside registered external bases (dataset root is not allowed); set "
                            + "allowExternalBlobOutsideBases to store it");
                }
                if (!u.contains("://") || u.endsWith("/")) {
                    throw invalid(name, i, "external blob URI '" + u + "' must be an absolute URI of an object");
                }
                kind.setSafe(i, BlobV2.EXTERNAL);
                ouri.setSafe(i, uriV.get(i));
                if (hasPos) {
                    long p = posV.get(i);
                    long s = sizeV.get(i);
                    if (p < 0 || s < 0 || p > Long.MAX_VALUE - s) {
                        throw invalid(name, i, "range [" + Long.toUnsignedString(p) + ", +" + Long.toUnsignedString(s)
                                + ") overflows");
                    }
                    opos.setSafe(i, p);
                    osize.setSafe(i, s);
                }
                continue;
            }
            byte[] b = data.get(i);
            if (b.length > dedicated[k]) {
                long id = nextId++;
                puts.add(Map.entry(sidecar(id), b));
                kind.setSafe(i, BlobV2.DEDICATED);
                osize.setSafe(i, b.length);
                oid.setSafe(i, (int) id);
            } else if (b.length > inline[k]) {
                if (pack == null || pack.size() + (long) b.length > packLimit) {
                    flushPack(puts);
                    packId = nextId++;
                    pack = new ByteArrayOutputStream();
                }
                kind.setSafe(i, BlobV2.PACKED);
                opos.setSafe(i, pack.size());
                osize.setSafe(i, b.length);
                oid.setSafe(i, (int) packId);
                pack.writeBytes(b);
            } else {
                kind.setSafe(i, BlobV2.INLINE);
                odata.setSafe(i, b);
            }
        }
        for (FieldVector c : out.getChildrenFromFields()) {
            c.setValueCount(n);
        }
        out.setValueCount(n);
    }

    private InvalidScanException invalid(String field, int row, String what) {
        return new InvalidScanException(uri, -1, "Blob v2 field '" + field + "' row " + row + ": " + what);
    }
}
