package io.javelin.index;

import com.google.protobuf.Any;
import com.google.protobuf.Message;
import io.javelin.index.pb.BTreeIndexDetails;
import io.javelin.index.pb.BitmapIndexDetails;
import io.javelin.index.pb.BloomFilterIndexDetails;
import io.javelin.index.pb.InvertedIndexDetails;
import io.javelin.index.pb.LabelListIndexDetails;
import io.javelin.index.pb.NGramIndexDetails;
import io.javelin.index.pb.VectorIndexDetails;
import io.javelin.index.pb.ZoneMapIndexDetails;
import java.util.List;
import java.util.Locale;

/**
 * Index types as {@code IndexMetadata.index_details} identifies them, with the type URL Lance 7
 * writes (verified on golden data: a leading {@code /}, no {@code type.googleapis.com} host; old
 * details in {@code lance.table}, newer ones in {@code lance.index.pb}), the highest
 * {@code index_version} we read, the version we write, and the files in {@code _indices/{uuid}/}.
 *
 * <p>Dispatch follows Lance: a URL ending in {@code VectorIndexDetails} is a vector index, one
 * ending in {@code InvertedIndexDetails} full-text; otherwise the last {@code .} segment,
 * lower-cased, minus {@code indexdetails}, names the scalar plugin. The package is ignored.
 */
public enum IndexType {
    BTREE("btree", "/lance.table.BTreeIndexDetails", 0, 0, List.of("page_lookup.lance", "page_data.lance")),
    BITMAP("bitmap", "/lance.table.BitmapIndexDetails", 0, 0, List.of("bitmap_page_lookup.lance")),
    LABEL_LIST("labellist", "/lance.table.LabelListIndexDetails", 0, 0, List.of("bitmap_page_lookup.lance")),
    NGRAM("ngram", "/lance.table.NGramIndexDetails", 0, 0, List.of("ngram_postings.lance")),
    ZONEMAP("zonemap", "/lance.table.ZoneMapIndexDetails", 0, 0, List.of("zonemap.lance")),
    BLOOM_FILTER("bloomfilter", "/lance.index.pb.BloomFilterIndexDetails", 0, 0, List.of("bloomfilter.lance")),
    INVERTED("inverted", "/lance.table.InvertedIndexDetails", 1, 0, List.of("metadata.lance")),
    VECTOR("vector", "/lance.index.pb.VectorIndexDetails", 1, 1, List.of("index.idx", "auxiliary.idx"));

    private final String plugin;
    private final String typeUrl;
    private final int maxReadVersion;
    private final int writeVersion;
    private final List<String> files;

    IndexType(String plugin, String typeUrl, int maxReadVersion, int writeVersion, List<String> files) {
        this.plugin = plugin;
        this.typeUrl = typeUrl;
        this.maxReadVersion = maxReadVersion;
        this.writeVersion = writeVersion;
        this.files = files;
    }

    public String plugin() {
        return plugin;
    }

    /** The {@code Any.type_url} Javelin writes (byte-identical to Lance 7.0.0's). */
    public String typeUrl() {
        return typeUrl;
    }

    /** Segments with a larger {@code index_version} are ignored (the query scans instead), as Lance does. */
    public int maxReadVersion() {
        return maxReadVersion;
    }

    /** The lowest {@code index_version} describing what we write. */
    public int writeVersion() {
        return writeVersion;
    }

    /** Files of one segment, relative to {@code _indices/{uuid}/} (FTS adds {@code part_*} files). */
    public List<String> files() {
        return files;
    }

    public boolean canRead(int indexVersion) {
        return indexVersion >= 0 && indexVersion <= maxReadVersion;
    }

    /** Lance's dispatch on a details type URL; null for types we do not know. */
    public static IndexType fromTypeUrl(String url) {
        if (url.endsWith("VectorIndexDetails")) {
            return VECTOR;
        }
        if (url.endsWith("InvertedIndexDetails")) {
            return INVERTED;
        }
        String last = url.substring(url.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
        String plugin = last.endsWith("indexdetails") ? last.substring(0, last.length() - "indexdetails".length()) : last;
        for (IndexType t : values()) {
            if (t.plugin.equals(plugin)) {
                return t;
            }
        }
        return null;
    }

    /** Packs a details message with the exact type URL Lance writes. */
    public static Any pack(Message details) {
        return Any.newBuilder().setTypeUrl("/" + details.getDescriptorForType().getFullName()).setValue(details.toByteString()).build();
    }

    /** The empty/default details message of this type, packed. */
    public Any defaultDetails() {
        Message m = switch (this) {
            case BTREE -> BTreeIndexDetails.getDefaultInstance();
            case BITMAP -> BitmapIndexDetails.getDefaultInstance();
            case LABEL_LIST -> LabelListIndexDetails.getDefaultInstance();
            case NGRAM -> NGramIndexDetails.getDefaultInstance();
            case ZONEMAP -> ZoneMapIndexDetails.getDefaultInstance();
            case BLOOM_FILTER -> BloomFilterIndexDetails.getDefaultInstance();
            case INVERTED -> InvertedIndexDetails.getDefaultInstance();
            case VECTOR -> VectorIndexDetails.getDefaultInstance();
        };
        return pack(m);
    }

    /**
     * The type of an index without {@code index_details} (very old datasets), inferred from its
     * files as Lance does: list column → LabelList, {@code bitmap_page_lookup.lance} → Bitmap,
     * {@code metadata.lance} or {@code invert.lance} → Inverted, {@code index.idx} → vector, else BTree.
     */
    public static IndexType inferFromFiles(List<String> fileNames, boolean listColumn) {
        if (fileNames.contains("index.idx")) {
            return VECTOR;
        }
        if (listColumn) {
            return LABEL_LIST;
        }
        if (fileNames.contains("bitmap_page_lookup.lance")) {
            return BITMAP;
        }
        if (fileNames.contains("metadata.lance") || fileNames.contains("invert.lance")) {
            return INVERTED;
        }
        return BTREE;
    }
}
