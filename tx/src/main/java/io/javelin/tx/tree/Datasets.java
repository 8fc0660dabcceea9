package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import io.javelin.tx.pb.BasePath;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Resolves {@code base_id} references of one Version Manifest: ids are looked up by
 * {@link BasePath#getId()}, never by position; 0 is a valid id; unknown ids are corrupt.
 */
public final class Datasets {

    private final String currentRoot;
    private final Map<Integer, BasePath> bases = new HashMap<>();

    /**
     * @param currentRoot URI of the current dataset (used to recognize a base path naming it)
     * @param basePaths   Manifest.base_paths
     */
    public Datasets(String currentRoot, List<BasePath> basePaths) {
        this.currentRoot = normalize(currentRoot);
        for (BasePath b : basePaths) {
            check(bases.put(b.getId(), b) == null, Rule.R12_BASE_ID, "duplicate BasePath id %d", b.getId());
        }
    }

    /** The current dataset. */
    public Owner current() {
        return Owner.CURRENT;
    }

    /** Resolves a reference inside an object owned by {@code containing}. */
    public Owner resolve(Owner containing, Integer baseId) {
        if (baseId == null) {
            return containing;
        }
        BasePath b = bases.get(baseId);
        check(b != null, Rule.R12_BASE_ID, "unknown base_id %d", baseId);
        check(b.getIsDatasetRoot(), Rule.R12_BASE_ID, "base_id %d does not name a dataset root", baseId);
        String root = normalize(b.getPath());
        return new Owner(baseId, root.equals(currentRoot) ? "" : root);
    }

    public ObjectLocation locate(Owner owner, String path) {
        return new ObjectLocation(owner.root(), path);
    }

    private static String normalize(String uri) {
        String u = uri;
        while (u.endsWith("/")) {
            u = u.substring(0, u.length() - 1);
        }
        return u;
    }

    /**
     * The resolved dataset of a tree object.
     *
     * @param baseId the BasePath id naming it, or null for the current dataset
     * @param root   its root URI ("" for the current dataset)
     */
    public record Owner(Integer baseId, String root) {
        static final Owner CURRENT = new Owner(null, "");

        public boolean isCurrent() {
            return root.isEmpty();
        }
    }
}
