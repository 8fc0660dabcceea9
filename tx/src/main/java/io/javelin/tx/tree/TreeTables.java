package io.javelin.tx.tree;

import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.store.ManifestStore;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import reactor.core.publisher.Mono;

/** Glue between tables and their fragment trees: the layout option, environments, opening. */
public final class TreeTables {

    /** Table config key selecting the manifest layout at creation (upstream's name). */
    public static final String LAYOUT_KEY = "lance.manifest.layout";
    public static final String LAYOUT_TREE = "tree";
    public static final String LAYOUT_FLAT = "flat";

    private static volatile BufferAllocator allocator;
    /** Decoded leaves of every table in this process (estimated heap up to an eighth of the maximum heap). */
    public static final LeafCache LEAVES = LeafCache.defaults();

    private TreeTables() {
    }

    /**
     * Whether a table config selects the tree layout; absent or {@code flat} means flat. Unknown values
     * are rejected, as upstream does, so a typo can never silently create a flat table.
     */
    public static boolean wantsTree(Map<String, String> config) {
        String v = config.get(LAYOUT_KEY);
        if (v == null || v.equals(LAYOUT_FLAT)) {
            return false;
        }
        if (v.equals(LAYOUT_TREE)) {
            return true;
        }
        throw new InvalidTableMetadataException("Unknown " + LAYOUT_KEY + " '" + v + "' (expected flat or tree)");
    }

    /** Arrow memory for leaf batches, shared by every table (empty when nothing is being decoded). */
    static BufferAllocator allocator() {
        BufferAllocator a = allocator;
        if (a == null) {
            synchronized (TreeTables.class) {
                if (allocator == null) {
                    allocator = OffHeapArrow.newRootAllocator("fragment-tree", Long.MAX_VALUE);
                }
                a = allocator;
            }
        }
        return a;
    }

    /** The tree environment of a table: its store, Lance-file leaves, and the policy of its config. */
    public static TreeEnv env(ManifestStore store, Map<String, String> config) {
        return new TreeEnv(new ManifestStoreTreeStore(store), new LanceLeafCodec(), allocator(),
                TreeConfig.fromTableConfig(config), LEAVES);
    }

    /** Opens the fragment state of a tree-backed manifest: reads at most the external root. */
    public static Mono<TreeSnapshot> open(ManifestStore store, Manifest manifest) {
        return TreeSnapshot.open(env(store, manifest.getConfigMap()), manifest, "");
    }

    /** The catalog a {@link io.javelin.tx.Snapshot} of a tree version lists its fragments through. */
    public static Mono<io.javelin.tx.FragmentCatalog> catalog(ManifestStore store, Manifest manifest) {
        return open(store, manifest).map(TreeFragmentCatalog::new);
    }
}
