package io.javelin.tx.rowid;

import com.google.protobuf.ByteString;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.manifest.SafePaths;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.ExternalFile;
import io.javelin.tx.store.ManifestStore;
import java.util.Arrays;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * A fragment's row-id and row-version metadata: inline bytes in the manifest, or an {@link ExternalFile}
 * byte range relative to the dataset root. This engine writes them inline (as Lance does) and reads both.
 */
public final class FragmentRowIds {

    private FragmentRowIds() {
    }

    public static boolean hasRowIds(DataFragment f) {
        return f.hasInlineRowIds() || f.hasExternalRowIds();
    }

    /** The row ids of {@code f}; an external sequence is read from the store. */
    public static Mono<RowIdSequence> read(ManifestStore store, DataFragment f) {
        if (f.hasInlineRowIds()) {
            return Mono.fromCallable(() -> checked(f, RowIdCodec.decode(f.getInlineRowIds().toByteArray())));
        }
        if (f.hasExternalRowIds()) {
            ExternalFile ef = f.getExternalRowIds();
            return Mono.defer(() -> {
                SafePaths.checkRelative("Row id file", ef.getPath());
                return store.read(ef.getPath()).map(all -> checked(f, RowIdCodec.decode(slice(all, ef))));
            });
        }
        return Mono.error(new InvalidTableMetadataException("Fragment " + f.getId() + " has no row ids"
                + " (all fragments must have row ids when stable row ids are enabled)"));
    }

    /** The inline sequence (or an error for external or missing ones): for pure code paths. */
    public static RowIdSequence readInline(DataFragment f) {
        if (!f.hasInlineRowIds()) {
            throw new InvalidTableMetadataException("Fragment " + f.getId() + " has no inline row ids");
        }
        return checked(f, RowIdCodec.decode(f.getInlineRowIds().toByteArray()));
    }

    private static byte[] slice(byte[] all, ExternalFile ef) {
        if (ef.getOffset() < 0 || ef.getSize() < 0 || ef.getOffset() + ef.getSize() > all.length) {
            throw new InvalidTableMetadataException("Row id range " + ef.getOffset() + "+" + ef.getSize() + " is outside "
                    + ef.getPath() + " (" + all.length + " bytes)");
        }
        return Arrays.copyOfRange(all, (int) ef.getOffset(), (int) (ef.getOffset() + ef.getSize()));
    }

    private static RowIdSequence checked(DataFragment f, RowIdSequence s) {
        if (s.length() != f.getPhysicalRows()) {
            throw new InvalidTableMetadataException("Fragment " + f.getId() + " has " + s.length() + " row ids for "
                    + f.getPhysicalRows() + " physical rows");
        }
        return s;
    }

    public static DataFragment.Builder setRowIds(DataFragment.Builder f, RowIdSequence seq) {
        return f.setInlineRowIds(ByteString.copyFrom(RowIdCodec.encode(seq)));
    }

    public static DataFragment.Builder setCreatedAt(DataFragment.Builder f, List<RowVersions.Run> runs) {
        return f.setInlineCreatedAtVersions(ByteString.copyFrom(RowIdCodec.encodeVersions(runs)));
    }

    public static DataFragment.Builder setLastUpdatedAt(DataFragment.Builder f, List<RowVersions.Run> runs) {
        return f.setInlineLastUpdatedAtVersions(ByteString.copyFrom(RowIdCodec.encodeVersions(runs)));
    }

    /** Created-at versions per row; {@code fallback} for every row when the fragment has none (older writers). */
    public static long[] createdAt(DataFragment f, long fallback) {
        return f.hasInlineCreatedAtVersions()
                ? RowVersions.expand(RowIdCodec.decodeVersions(f.getInlineCreatedAtVersions().toByteArray()))
                : uniform(f, fallback);
    }

    public static long[] lastUpdatedAt(DataFragment f, long fallback) {
        return f.hasInlineLastUpdatedAtVersions()
                ? RowVersions.expand(RowIdCodec.decodeVersions(f.getInlineLastUpdatedAtVersions().toByteArray()))
                : uniform(f, fallback);
    }

    private static long[] uniform(DataFragment f, long v) {
        long[] out = new long[Math.toIntExact(f.getPhysicalRows())];
        Arrays.fill(out, v);
        return out;
    }
}
