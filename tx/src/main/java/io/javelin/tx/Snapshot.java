package io.javelin.tx;

import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.schema.LanceSchema;
import io.javelin.tx.store.ManifestStore;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** One version of a table at the metadata level: schema, fragments, row counts, deletion vectors. */
public final class Snapshot {

    private final ManifestStore store;
    private final ManifestFile file;
    private final LanceSchema schema;
    private final FragmentCatalog catalog;

    Snapshot(ManifestStore store, ManifestFile file) {
        this(store, file, null);
    }

    /** A version whose fragments come from {@code catalog} (null: the manifest's flat list). */
    public Snapshot(ManifestStore store, ManifestFile file, FragmentCatalog catalog) {
        this.store = store;
        this.file = file;
        Map<String, byte[]> md = new LinkedHashMap<>();
        file.manifest().getSchemaMetadataMap().forEach((k, v) -> md.put(k, v.toByteArray()));
        this.schema = LanceSchema.fromProto(file.manifest().getFieldsList(), md);
        if (catalog == null) {
            List<FragmentInfo> out = new ArrayList<>();
            file.manifest().getFragmentsList().forEach(f -> out.add(FragmentInfo.of(f)));
            catalog = new FlatFragmentCatalog(out);
        }
        this.catalog = catalog;
    }

    /** This version with its fragment records replaced (statistics old writers left out, computed from files). */
    public Snapshot withFragments(List<FragmentInfo> fragments) {
        return new Snapshot(store, file, new FlatFragmentCatalog(List.copyOf(fragments)));
    }

    public long version() {
        return file.version();
    }

    public ManifestFile manifestFile() {
        return file;
    }

    public LanceSchema schema() {
        return schema;
    }

    /**
     * The fragments in id order. A tree table lists them lazily: call {@link #loadFragments()} first
     * (reactive paths do), otherwise this throws {@link IllegalStateException}.
     */
    public List<FragmentInfo> fragments() {
        return catalog.loaded().orElseThrow(() -> new IllegalStateException("Version " + version()
                + " stores its fragments in a fragment tree: load them with loadFragments() first"));
    }

    /** The fragments in id order, read from the tree once if this is a tree table. */
    public Mono<List<FragmentInfo>> loadFragments() {
        return catalog.list();
    }

    /** Where the fragment records of this version come from (flat list or tree). */
    public FragmentCatalog catalog() {
        return catalog;
    }

    /** Live rows from the manifest (and a tree's root summaries) alone; no data or deletion file is read. */
    public long countRows() {
        return catalog.liveRows();
    }

    public String dataStorageVersion() {
        return file.manifest().getDataFormat().getVersion();
    }

    /** The deletion vector of a fragment, checked against the manifest's counts. */
    public Mono<RoaringBitmap> deletions(FragmentInfo f) {
        return DeletionFiles.read(store, f.fragment());
    }

    /** Reads every deletion file and returns the deleted-row counts by fragment id (in fragment order). */
    public Mono<Map<Long, Long>> verifyDeletions() {
        return loadFragments().flatMapMany(Flux::fromIterable)
                .concatMap(f -> deletions(f).map(rb -> Map.entry(f.id(), rb.getLongCardinality())))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new);
    }
}
