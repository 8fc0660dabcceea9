package io.javelin.engine;

import com.google.protobuf.CodedInputStream;
import io.javelin.objectstore.ObjectStore;
import io.javelin.tx.CorruptFileException;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Row statistics old writers did not record (Lance before 0.8: no {@code physical_rows}, no
 * {@code num_deleted_rows}; 0 in the protobuf means unknown), computed from the files as lance-core's
 * {@code migrate_fragments} does: a fragment's rows from its first data file, deletions from its
 * deletion file. Newer manifests always carry them, so this reads nothing for them.
 */
final class MissingStats {

    private static final int LEGACY_FOOTER = 16;
    private static final int MAGIC = 0x434e414c; // "LANC" little-endian

    private MissingStats() {
    }

    static boolean missing(DataFragment f) {
        return f.getPhysicalRows() == 0 && f.getFilesCount() > 0
                || f.hasDeletionFile() && f.getDeletionFile().getNumDeletedRows() == 0;
    }

    /** {@code ds} itself when nothing is missing, else the same version with computed statistics ({@code ds} is closed). */
    static Mono<Dataset> fill(Dataset ds) {
        var loaded = ds.snapshot().catalog().loaded();
        // Lance before it recorded writer_version (0.8.0) sometimes wrote wrong physical_rows (lance#1531):
        // lance-core recomputes every fragment's statistics of such a manifest
        boolean untrusted = !ds.snapshot().manifestFile().manifest().hasWriterVersion();
        if (loaded.isEmpty() || loaded.get().stream().noneMatch(f -> untrusted || missing(f.fragment()))) {
            return Mono.just(ds); // a fragment tree records statistics in its leaves
        }
        List<FragmentInfo> frags = loaded.get();
        return Flux.fromIterable(frags)
                .flatMapSequential(f -> untrusted ? complete(ds, unknownStats(f)) : missing(f.fragment()) ? complete(ds, f)
                        : Mono.just(f), 4)
                .collectList()
                .map(filled -> {
                    Dataset out = ds.derive(ds.snapshot().withFragments(filled));
                    ds.close();
                    return out;
                })
                .doOnError(e -> ds.close())
                .doOnCancel(ds::close);
    }

    private static FragmentInfo unknownStats(FragmentInfo f) {
        DataFragment.Builder b = f.fragment().toBuilder().setPhysicalRows(0);
        if (b.hasDeletionFile()) {
            b.setDeletionFile(b.getDeletionFile().toBuilder().setNumDeletedRows(0));
        }
        return FragmentInfo.of(b.build());
    }

    private static Mono<FragmentInfo> complete(Dataset ds, FragmentInfo f) {
        DataFragment frag = f.fragment();
        Mono<Long> rows = frag.getPhysicalRows() != 0 || frag.getFilesCount() == 0 ? Mono.just(frag.getPhysicalRows())
                : rowsOf(ds, frag.getFiles(0));
        return rows.flatMap(n -> {
            DataFragment.Builder b = frag.toBuilder().setPhysicalRows(n);
            if (!frag.hasDeletionFile() || frag.getDeletionFile().getNumDeletedRows() != 0) {
                return Mono.just(FragmentInfo.of(b.build()));
            }
            return ds.snapshot().deletions(FragmentInfo.of(b.build())).map(rb -> FragmentInfo.of(b.setDeletionFile(
                    frag.getDeletionFile().toBuilder().setNumDeletedRows(rb.getLongCardinality())).build()));
        });
    }

    private static Mono<Long> rowsOf(Dataset ds, DataFile df) {
        boolean legacy = df.getFileMajorVersion() == 0 && df.getFileMinorVersion() < 3;
        if (!legacy || df.hasBaseId()) {
            return ds.openFile(df, ds.io()).map(r -> r.numRows());
        }
        return legacyRows(ds.objectStore(), "data/" + df.getPath());
    }

    /**
     * Rows of a legacy (0.1/0.2) file: its 16-byte footer {@code metadata_position u64, major u16, minor u16,
     * "LANC"} points at a length-prefixed {@code lance.file.Metadata} whose {@code batch_offsets} (field 2)
     * end with the row count.
     */
    static Mono<Long> legacyRows(ObjectStore store, String path) {
        return store.head(path).flatMap(meta -> store.readTail(path, LEGACY_FOOTER).flatMap(tail -> {
            long pos;
            try (tail) {
                ByteBuffer b = tail.asByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                if (tail.size() < LEGACY_FOOTER || b.getInt(12) != MAGIC) {
                    return Mono.error(new CorruptFileException(path, "No Lance footer"));
                }
                pos = b.getLong(0);
            }
            long end = meta.size() - LEGACY_FOOTER;
            if (pos < 0 || pos + 4 > end) {
                return Mono.error(new CorruptFileException(path, "Metadata position " + pos + " outside the file"));
            }
            return store.read(path, pos, end - pos).map(buf -> {
                try (buf) {
                    return batchOffsetsEnd(path, buf.toByteArray());
                }
            });
        }));
    }

    static long batchOffsetsEnd(String path, byte[] framed) {
        ByteBuffer b = ByteBuffer.wrap(framed).order(ByteOrder.LITTLE_ENDIAN);
        int len = b.getInt(0);
        if (len < 0 || 4L + len > framed.length) {
            throw new CorruptFileException(path, "Metadata length " + len + " outside the file");
        }
        try {
            CodedInputStream in = CodedInputStream.newInstance(framed, 4, len);
            long last = 0;
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                if (tag == (2 << 3 | 2)) { // packed batch_offsets
                    int limit = in.pushLimit(in.readRawVarint32());
                    while (in.getBytesUntilLimit() > 0) {
                        last = in.readInt32();
                    }
                    in.popLimit(limit);
                } else if (tag == (2 << 3)) {
                    last = in.readInt32();
                } else {
                    in.skipField(tag);
                }
            }
            return last;
        } catch (IOException e) {
            throw new CorruptFileException(path, "Bad legacy file metadata: " + e.getMessage());
        }
    }
}
