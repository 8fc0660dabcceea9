package io.javelin.tx.maintenance;

import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.Manifest;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Cleanup as a pure function (Lance {@code cleanup.rs}): from every manifest, the tags and a listing of the
 * dataset, decide what to delete.
 *
 * <ul>
 *   <li>Retained ("working set"): the latest version, tagged versions, versions the policy does not call
 *       old, plus {@code extraReferences} (files named by other datasets sharing this root, e.g. branches).
 *       Everything they name is referenced. Old versions' manifests are deleted; files only they name are
 *       "verified" garbage.</li>
 *   <li>Only objects last modified before the earliest retained manifest's commit time are considered (a
 *       younger object may belong to a write in progress). Of those, in Lance's managed locations only
 *       ({@code data/*.lance}, {@code _deletions/*.arrow|bin}, {@code _transactions/*.txn},
 *       {@code _indices/{uuid}/...}, {@code _versions/.tmp*}): an unreferenced object is deleted if verified,
 *       or older than 7 days, or with {@code deleteUnverified}.</li>
 *   <li>Everything else ({@code _refs/}, {@code tree/} branches, {@code _bt/} tree objects, files reached
 *       through {@code base_id}, unknown names) is never touched. Fragment-tree objects are cleaned by
 *       {@code tx.tree.TreeCleanup} once tree manifests are committed (hook: {@link #TREE_PREFIX}).</li>
 * </ul>
 */
public final class CleanupPlanner {

    /** Fragment metadata tree objects: reachability is {@code io.javelin.tx.tree.TreeCleanup}'s job. */
    public static final String TREE_PREFIX = "_bt/";

    /** One version: its manifest path (relative to the root) and decoded file. */
    public record Version(String path, long size, ManifestFile file) {
        public long number() {
            return file.version();
        }

        public Instant committed() {
            var ts = file.manifest().getTimestamp();
            return Instant.ofEpochSecond(ts.getSeconds(), ts.getNanos());
        }
    }

    /** One listed object; {@code lastModified} null when the store did not say (then it is kept). */
    public record Listed(String path, long size, Instant lastModified) {
    }

    private CleanupPlanner() {
    }

    public static CleanupPlan plan(List<Version> versions, Set<Long> taggedVersions, Set<String> extraReferences,
                                   List<Listed> listing, CleanupPolicy policy, Instant now) {
        if (versions.isEmpty()) {
            return new CleanupPlan(List.of(), List.of(), List.of(), 0, 0, 0, 0, 0, List.of());
        }
        long latest = versions.stream().mapToLong(Version::number).max().orElseThrow();
        Set<String> referenced = new HashSet<>(extraReferences);
        Set<String> verified = new HashSet<>();
        Set<String> referencedIndices = new HashSet<>();
        Set<String> verifiedIndices = new HashSet<>();
        List<Long> oldVersions = new ArrayList<>();
        List<String> oldManifests = new ArrayList<>();
        TreeSet<Long> taggedOld = new TreeSet<>();
        List<CleanupPlan.Removal> removals = new ArrayList<>();
        Instant earliestRetained = null;
        long manifestBytes = 0;
        for (Version v : versions) {
            boolean old = policy.isOld(v.number(), v.committed());
            boolean tagged = taggedVersions.contains(v.number());
            boolean retained = v.number() == latest || tagged || !old;
            if (tagged && old && v.number() != latest) {
                taggedOld.add(v.number());
            }
            if (retained) {
                collect(v.file(), referenced, referencedIndices);
                if (earliestRetained == null || v.committed().isBefore(earliestRetained)) {
                    earliestRetained = v.committed();
                }
            } else {
                collect(v.file(), verified, verifiedIndices);
                oldVersions.add(v.number());
                oldManifests.add(v.path());
                manifestBytes += Math.max(0, v.size());
                removals.add(new CleanupPlan.Removal(v.path(), Math.max(0, v.size()), "manifest of version " + v.number()
                        + ", committed " + v.committed() + ": " + policy.describeOld() + ", neither latest nor tagged"));
            }
        }
        if (policy.errorIfTaggedOldVersions() && !taggedOld.isEmpty()) {
            throw new InvalidTableMetadataException("Cleanup error: " + taggedOld.size() + " tagged version(s) are old: "
                    + taggedOld + " (delete the tags or disable errorIfTaggedOldVersions)");
        }
        Set<String> doomedManifests = new HashSet<>(oldManifests);
        Instant unverifiedBefore = now.minus(CleanupPolicy.UNVERIFIED_THRESHOLD);
        List<String> files = new ArrayList<>();
        long bytes = manifestBytes;
        int data = 0;
        int deletions = 0;
        int txns = 0;
        int indexFiles = 0;
        for (Listed o : listing) {
            if (o.lastModified() == null || !o.lastModified().isBefore(earliestRetained) || doomedManifests.contains(o.path())) {
                continue;
            }
            boolean maybeInProgress = !policy.deleteUnverified() && !o.lastModified().isBefore(unverifiedBefore);
            String p = o.path();
            boolean delete;
            String why;
            if (p.startsWith("_versions/.tmp")) {
                delete = !maybeInProgress;
                why = "staging file of an unfinished commit, last modified " + o.lastModified();
            } else if (p.startsWith("_indices/")) {
                String uuid = p.substring("_indices/".length());
                int slash = uuid.indexOf('/');
                if (slash <= 0) {
                    continue;
                }
                uuid = uuid.substring(0, slash);
                delete = !referencedIndices.contains(uuid) && (verifiedIndices.contains(uuid) || !maybeInProgress);
                why = verifiedIndices.contains(uuid) ? "file of index " + uuid + ", which only removed versions use"
                        : unreferenced("file of index " + uuid, o, policy);
                if (delete) {
                    indexFiles++;
                }
            } else if (managed(p)) {
                // a blob sidecar lives and dies with the data file it belongs to
                String owner = sidecarOwner(p);
                String key = owner != null ? owner : p;
                delete = !referenced.contains(key) && (verified.contains(key) || !maybeInProgress);
                String kind = owner != null ? "blob sidecar of " + owner : p.startsWith("data/") ? "data file"
                        : p.startsWith(DeletionFiles.DIR) ? "deletion file" : "transaction file";
                why = verified.contains(key) ? kind + " that only removed versions use" : unreferenced(kind, o, policy);
                if (delete) {
                    if (p.startsWith("data/")) {
                        data++;
                    } else if (p.startsWith(DeletionFiles.DIR)) {
                        deletions++;
                    } else {
                        txns++;
                    }
                }
            } else {
                continue;
            }
            if (delete) {
                files.add(p);
                bytes += o.size();
                removals.add(new CleanupPlan.Removal(p, o.size(), why));
            }
        }
        return new CleanupPlan(oldVersions, oldManifests, files, bytes, data, deletions, txns, indexFiles, removals);
    }

    private static String unreferenced(String kind, Listed o, CleanupPolicy policy) {
        return kind + " no version references, last modified " + o.lastModified()
                + (policy.deleteUnverified() ? " (delete_unverified)" : " (older than the 7-day unverified threshold)");
    }

    /**
     * The data file ({@code data/<stem>.lance}) a blob v2 sidecar {@code data/<stem>/<32 binary digits>.blob}
     * belongs to, or null when {@code p} is not such a sidecar.
     */
    static String sidecarOwner(String p) {
        if (!p.startsWith("data/") || !p.endsWith(".blob")) {
            return null;
        }
        int slash = p.indexOf('/', "data/".length());
        if (slash <= "data/".length() || p.indexOf('/', slash + 1) >= 0) {
            return null;
        }
        String name = p.substring(slash + 1, p.length() - ".blob".length());
        if (name.length() != 32 || !name.chars().allMatch(c -> c == '0' || c == '1')) {
            return null;
        }
        return p.substring(0, slash) + ".lance";
    }

    /** Direct children of Lance's managed directories with the managed extensions, and blob sidecars. */
    static boolean managed(String p) {
        return sidecarOwner(p) != null
                || direct(p, "data/") && p.endsWith(".lance")
                || direct(p, DeletionFiles.DIR) && (p.endsWith(".arrow") || p.endsWith(".bin"))
                || direct(p, "_transactions/") && p.endsWith(".txn");
    }

    private static boolean direct(String p, String dir) {
        return p.startsWith(dir) && p.indexOf('/', dir.length()) < 0;
    }

    /** Files of this dataset root that {@code f} names (files under other bases are not ours to delete). */
    public static void collect(ManifestFile f, Set<String> files, Set<String> indexUuids) {
        Manifest m = f.manifest();
        for (DataFragment fr : m.getFragmentsList()) {
            for (DataFile df : fr.getFilesList()) {
                if (!df.hasBaseId()) {
                    files.add("data/" + df.getPath());
                }
            }
            if (fr.hasDeletionFile() && !fr.getDeletionFile().hasBaseId()) {
                files.add(DeletionFiles.path(fr.getId(), fr.getDeletionFile()));
            }
            if (fr.hasExternalRowIds()) {
                files.add(fr.getExternalRowIds().getPath());
            }
        }
        if (!m.getTransactionFile().isEmpty()) {
            files.add("_transactions/" + m.getTransactionFile());
        }
        if (f.indexSection() != null) {
            for (IndexMetadata im : f.indexSection().getIndicesList()) {
                if (!im.hasBaseId()) {
                    indexUuids.add(uuid(im));
                }
            }
        }
    }

    static String uuid(IndexMetadata im) {
        byte[] b = im.getUuid().getUuid().toByteArray();
        if (b.length != 16) {
            return new String(b, java.nio.charset.StandardCharsets.UTF_8);
        }
        ByteBuffer bb = ByteBuffer.wrap(b);
        return new UUID(bb.getLong(), bb.getLong()).toString();
    }
}
