package io.javelin.tx.transaction;

import com.google.protobuf.ByteString;
import io.javelin.tx.CommitConflictException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.IndexSection;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.rowid.FragmentRowIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;

/**
 * The manifest effect of a {@code Rewrite} (compaction), as Lance's {@code handle_rewrite_fragments}: each
 * group's old fragments are replaced by its new ones at the position of the first old one when the old ones
 * are adjacent (else the new ones go last); new fragments with id 0 get ids from the high-water mark.
 *
 * <p>Indices: with stable row ids the index files stay valid and only the fragment bitmaps move from old to
 * new ids (Lance {@code recalculate_fragment_bitmap}). Without them row addresses changed: segments named in
 * {@code rewritten_indices} take their new uuid and the new ids; every other segment stops covering the old
 * fragments (its rows are found by scanning until the index is remapped or rebuilt; remapping index files
 * during compaction is deferred).
 */
final class RewriteApplier {

    private RewriteApplier() {
    }

    static IndexSection apply(Manifest.Builder m, Transaction.Rewrite rw, boolean stableRowIds, IndexSection index,
                              List<Integer> newFragmentIds, long version) {
        List<Transaction.Rewrite.RewriteGroup> groups = new ArrayList<>(rw.getGroupsList());
        if (groups.isEmpty() && rw.getOldFragmentsCount() > 0) { // deprecated single-group form
            groups.add(Transaction.Rewrite.RewriteGroup.newBuilder().addAllOldFragments(rw.getOldFragmentsList())
                    .addAllNewFragments(rw.getNewFragmentsList()).build());
        }
        List<DataFragment> frags = new ArrayList<>(m.getFragmentsList());
        long next = ManifestBuilder.nextFragmentId(m);
        List<long[]> idGroups = new ArrayList<>(); // per group: old ids..., then -1, then new ids
        for (Transaction.Rewrite.RewriteGroup g : groups) {
            if (g.getOldFragmentsCount() == 0) {
                throw new InvalidTableMetadataException("Rewrite group without old fragments");
            }
            int start = indexOf(frags, g.getOldFragments(0).getId());
            for (DataFragment old : g.getOldFragmentsList()) {
                int at = indexOf(frags, old.getId());
                if (at < 0) {
                    throw new CommitConflictException("Dataset does not contain a fragment a rewrite operation wants to replace: id="
                            + old.getId() + " (version " + (version - 1) + ")");
                }
            }
            boolean contiguous = start >= 0;
            for (int i = 1; contiguous && i < g.getOldFragmentsCount(); i++) {
                contiguous = start + i < frags.size() && frags.get(start + i).getId() == g.getOldFragments(i).getId();
            }
            List<DataFragment> added = new ArrayList<>();
            long[] ids = new long[g.getOldFragmentsCount() + 1 + g.getNewFragmentsCount()];
            int k = 0;
            for (DataFragment old : g.getOldFragmentsList()) {
                ids[k++] = old.getId();
            }
            ids[k++] = -1;
            for (DataFragment f : g.getNewFragmentsList()) {
                ManifestBuilder.checkNewFragment(f);
                if (stableRowIds && !FragmentRowIds.hasRowIds(f)) {
                    throw new InvalidTableMetadataException("Rewritten fragment lacks row ids on a dataset with stable row ids");
                }
                long id = f.getId() == 0 ? next++ : f.getId();
                ManifestBuilder.checkU32(id);
                added.add(f.toBuilder().setId(id).build());
                newFragmentIds.add((int) id);
                ids[k++] = id;
            }
            idGroups.add(ids);
            if (contiguous) {
                for (int i = 0; i < g.getOldFragmentsCount(); i++) {
                    frags.remove(start);
                }
                frags.addAll(start, added);
            } else {
                for (DataFragment old : g.getOldFragmentsList()) {
                    frags.remove(indexOf(frags, old.getId()));
                }
                frags.addAll(added);
            }
        }
        m.clearFragments().addAllFragments(frags);
        return rewriteIndices(index, rw, stableRowIds, idGroups);
    }

    private static int indexOf(List<DataFragment> frags, long id) {
        for (int i = 0; i < frags.size(); i++) {
            if (frags.get(i).getId() == id) {
                return i;
            }
        }
        return -1;
    }

    private static IndexSection rewriteIndices(IndexSection index, Transaction.Rewrite rw, boolean stable, List<long[]> groups) {
        if (index == null) {
            return null;
        }
        Map<ByteString, Transaction.Rewrite.RewrittenIndex> rewritten = new HashMap<>();
        rw.getRewrittenIndicesList().forEach(r -> rewritten.put(r.getOldId().getUuid(), r));
        IndexSection.Builder out = IndexSection.newBuilder();
        for (IndexMetadata im : index.getIndicesList()) {
            Transaction.Rewrite.RewrittenIndex r = rewritten.get(im.getUuid().getUuid());
            IndexMetadata.Builder b = im.toBuilder();
            if (r != null) {
                b.setUuid(r.getNewId());
                if (r.hasNewIndexDetails()) {
                    b.setIndexDetails(r.getNewIndexDetails());
                }
                b.setIndexVersion((int) r.getNewIndexVersion());
                if (r.getNewIndexFilesCount() > 0) { // the remapped segment's files (sizes differ from the old ones)
                    b.clearFiles().addAllFiles(r.getNewIndexFilesList());
                }
            }
            if (!im.getFragmentBitmap().isEmpty()) {
                b.setFragmentBitmap(recalculate(im, groups, stable || r != null));
            }
            out.addIndices(b);
        }
        return out.build();
    }

    /** Old ids out; new ids in when the index still finds the rows (stable ids or a remapped index). */
    private static ByteString recalculate(IndexMetadata im, List<long[]> groups, boolean coversNew) {
        try {
            RoaringBitmap rb = new RoaringBitmap();
            rb.deserialize(ByteBuffer.wrap(im.getFragmentBitmap().toByteArray()));
            for (long[] g : groups) {
                int sep = 0;
                while (g[sep] != -1) {
                    sep++;
                }
                boolean any = false;
                boolean all = true;
                for (int i = 0; i < sep; i++) {
                    boolean in = rb.contains((int) g[i]);
                    any |= in;
                    all &= in;
                }
                if (!any) {
                    continue;
                }
                if (!all && coversNew) {
                    throw new InvalidTableMetadataException("The compaction plan included a rewrite group that was a split of"
                            + " indexed and non-indexed data (index " + im.getName() + ")");
                }
                for (int i = 0; i < sep; i++) {
                    rb.remove((int) g[i]);
                }
                if (coversNew) {
                    for (int i = sep + 1; i < g.length; i++) {
                        rb.add((int) g[i]);
                    }
                }
            }
            rb.runOptimize();
            rb.removeRunCompression();
            ByteBuffer buf = ByteBuffer.allocate(rb.serializedSizeInBytes());
            rb.serialize(buf);
            return ByteString.copyFrom(buf.array());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
