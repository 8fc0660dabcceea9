package io.javelin.tx.deletion;

import io.javelin.tx.CorruptFileException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.store.ManifestStore;
import java.util.concurrent.ThreadLocalRandom;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Mono;

/**
 * Deletion files: {@code _deletions/{fragment_id}-{read_version}-{random u64}.{arrow|bin}}, holding the
 * <em>cumulative</em> set of deleted row offsets of one fragment (not a delta).
 */
public final class DeletionFiles {

    public static final String DIR = "_deletions/";
    /**
     * Lance's {@code BITMAP_THRESDHOLD}: a vector of this many offsets or more is a bitmap, smaller ones are
     * an Arrow array (Lance's exact-size path; its grow-a-set path switches only above 5000, so readers
     * must, and do, accept either kind at any size).
     */
    public static final int BITMAP_THRESHOLD = 5_000;

    private DeletionFiles() {
    }

    public static DeletionFile.DeletionFileType typeFor(long deletedRows) {
        return deletedRows >= BITMAP_THRESHOLD ? DeletionFile.DeletionFileType.BITMAP : DeletionFile.DeletionFileType.ARROW_ARRAY;
    }

    /** The path of a fragment's deletion file, relative to the dataset root (base paths not resolved here). */
    public static String path(long fragmentId, DeletionFile file) {
        String ext = switch (file.getFileType()) {
            case ARROW_ARRAY -> "arrow";
            case BITMAP -> "bin";
            default -> throw new InvalidTableMetadataException("Unknown deletion file type " + file.getFileTypeValue()
                    + " of fragment " + fragmentId);
        };
        return DIR + fragmentId + "-" + file.getReadVersion() + "-" + Long.toUnsignedString(file.getId()) + "." + ext;
    }

    /** Decodes a deletion file of either kind. */
    public static RoaringBitmap decode(String path, DeletionFile.DeletionFileType type, byte[] bytes) {
        return type == DeletionFile.DeletionFileType.BITMAP
                ? BitmapDeletionCodec.read(path, bytes)
                : ArrowDeletionCodec.read(path, bytes);
    }

    /**
     * Reads the deletion vector of a fragment (empty if it has none) and checks it against the manifest:
     * the count must match {@code num_deleted_rows} (when known) and every offset must be a physical row.
     */
    public static Mono<RoaringBitmap> read(ManifestStore store, DataFragment fragment) {
        if (!fragment.hasDeletionFile()) {
            return Mono.just(new RoaringBitmap());
        }
        DeletionFile df = fragment.getDeletionFile();
        if (df.hasBaseId()) {
            return Mono.error(new InvalidTableMetadataException("Deletion files in other base paths are not supported yet"
                    + " (fragment " + fragment.getId() + ", base id " + df.getBaseId() + ")"));
        }
        String path;
        try {
            path = path(fragment.getId(), df);
        } catch (InvalidTableMetadataException e) {
            return Mono.error(e);
        }
        return store.read(path).map(bytes -> {
            RoaringBitmap rb = decode(path, df.getFileType(), bytes);
            long n = rb.getLongCardinality();
            if (df.getNumDeletedRows() != 0 && n != df.getNumDeletedRows()) {
                throw new CorruptFileException(path, "Deletion file holds " + n + " offsets but the manifest says "
                        + df.getNumDeletedRows());
            }
            if (fragment.getPhysicalRows() > 0 && !rb.isEmpty() && Integer.toUnsignedLong(rb.last()) >= fragment.getPhysicalRows()) {
                throw new CorruptFileException(path, "Deleted offset " + Integer.toUnsignedLong(rb.last())
                        + " is not below physical_rows " + fragment.getPhysicalRows());
            }
            return rb;
        });
    }

    /**
     * Writes {@code deleted} (the full, cumulative vector; must be non-empty) for a fragment and returns the
     * {@code DeletionFile} to put in the fragment. The kind follows {@link #BITMAP_THRESHOLD}.
     */
    public static Mono<DeletionFile> write(ManifestStore store, long fragmentId, long readVersion, RoaringBitmap deleted) {
        return Mono.defer(() -> {
            long n = deleted.getLongCardinality();
            if (n == 0) {
                return Mono.error(new IllegalArgumentException("Empty deletion vector for fragment " + fragmentId
                        + " (Lance treats 0 deleted rows as unknown: write no file instead)"));
            }
            DeletionFile.DeletionFileType type = typeFor(n);
            DeletionFile df = DeletionFile.newBuilder().setFileType(type).setReadVersion(readVersion)
                    .setId(ThreadLocalRandom.current().nextLong()).setNumDeletedRows(n).build();
            byte[] bytes = type == DeletionFile.DeletionFileType.BITMAP
                    ? BitmapDeletionCodec.write(deleted)
                    : ArrowDeletionCodec.write(deleted);
            String path = path(fragmentId, df);
            // "Already exists" after an attempt whose acknowledgement was lost: the name carries a random
            // 64-bit id, so it is our own earlier attempt if the bytes are ours (found by the commit torture)
            return store.putIfAbsent(path, bytes).thenReturn(df)
                    .onErrorResume(io.javelin.tx.store.StoreAlreadyExistsException.class, e -> e.ambiguous()
                            ? store.read(path).flatMap(there -> java.util.Arrays.equals(there, bytes) ? Mono.just(df) : Mono.error(e))
                            : Mono.error(e));
        });
    }
}
