package io.javelin.engine.index;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.engine.Dataset;
import io.javelin.index.IndexFiles;
import io.javelin.index.IndexType;
import io.javelin.index.pb.VectorIndexDetails;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.schema.LanceField;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.roaringbitmap.RoaringBitmap;

/** Reads the index section of a dataset version into {@link IndexInfo}s (pure: no I/O beyond the loaded manifest). */
public final class IndexCatalog {

    /** The fragment-reuse system index; never a query index. */
    public static final String FRAG_REUSE = "__lance_frag_reuse";

    private IndexCatalog() {
    }

    public static List<IndexInfo> list(Dataset ds) {
        IndexSection section = ds.snapshot().manifestFile().indexSection();
        List<IndexInfo> out = new ArrayList<>();
        if (section == null) {
            return out;
        }
        for (IndexMetadata im : section.getIndicesList()) {
            out.add(describe(ds, im));
        }
        return out;
    }

    /** Segments a query may use: readable, of a known type, not system indexes. */
    public static List<IndexInfo> usable(Dataset ds) {
        return list(ds).stream().filter(i -> i.readable() && i.type() != null && !i.name().equals(FRAG_REUSE)).toList();
    }

    static IndexInfo describe(Dataset ds, IndexMetadata im) {
        UUID uuid = IndexFiles.uuidFromBytes(im.getUuid().getUuid().toByteArray(), ds.uri() + " index " + im.getName());
        List<String> cols = new ArrayList<>();
        for (int id : im.getFieldsList()) {
            LanceField f = ds.lanceSchema().field(id);
            cols.add(f == null ? "#" + id : path(ds, f));
        }
        IndexType type = im.hasIndexDetails() ? IndexType.fromTypeUrl(im.getIndexDetails().getTypeUrl()) : null;
        if (type == null && !im.hasIndexDetails()) {
            List<String> files = im.getFilesList().stream().map(f -> f.getPath()).toList();
            type = files.isEmpty() ? null : IndexType.inferFromFiles(files, false);
        }
        int version = im.hasIndexVersion() ? im.getIndexVersion() : 0;
        RoaringBitmap frags = new RoaringBitmap();
        if (!im.getFragmentBitmap().isEmpty()) {
            try {
                frags.deserialize(ByteBuffer.wrap(im.getFragmentBitmap().toByteArray()));
            } catch (IOException | RuntimeException e) {
                frags = new RoaringBitmap(); // unreadable coverage: treat as covering nothing (queries scan)
                type = null;
            }
        }
        boolean readable = type != null && type.canRead(version);
        return new IndexInfo(im.getName(), uuid, displayType(type, im), type, List.copyOf(cols), List.copyOf(im.getFieldsList()),
                im.getDatasetVersion(), version, frags, readable, im);
    }

    private static String path(Dataset ds, LanceField f) {
        String name = f.name();
        LanceField p = f.parentId() >= 0 ? ds.lanceSchema().field(f.parentId()) : null;
        while (p != null) {
            name = p.name() + "." + name;
            p = p.parentId() >= 0 ? ds.lanceSchema().field(p.parentId()) : null;
        }
        return name;
    }

    /** Lance's display names ({@code describeIndices}). */
    static String displayType(IndexType type, IndexMetadata im) {
        if (type == null) {
            return "Unknown(" + (im.hasIndexDetails() ? im.getIndexDetails().getTypeUrl() : "no details") + ")";
        }
        return switch (type) {
            case BTREE -> "BTree";
            case BITMAP -> "Bitmap";
            case LABEL_LIST -> "LabelList";
            case NGRAM -> "NGram";
            case ZONEMAP -> "ZoneMap";
            case BLOOM_FILTER -> "BloomFilter";
            case INVERTED -> "Inverted";
            case VECTOR -> vectorType(im);
        };
    }

    static String vectorType(IndexMetadata im) {
        try {
            VectorIndexDetails d = VectorIndexDetails.parseFrom(im.getIndexDetails().getValue());
            String q = switch (d.getCompressionCase()) {
                case PQ -> "PQ";
                case SQ -> "SQ";
                case RQ -> "RQ";
                case FLAT -> "FLAT";
                case COMPRESSION_NOT_SET -> null;
            };
            if (q == null) {
                return "IVF_PQ"; // Lance before typed details wrote an empty message; IVF_PQ was the only layout then
            }
            if (d.hasHnswIndexConfig()) {
                return "IVF_HNSW_" + q;
            }
            return "IVF_" + q;
        } catch (InvalidProtocolBufferException e) {
            return "Vector";
        }
    }
}
