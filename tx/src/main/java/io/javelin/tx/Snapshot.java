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
    private final List<FragmentInfo> fragments;

    Snapshot(ManifestStore store, ManifestFile file) {
        this.store = store;
        this.file = file;
        Map<String, byte[]> md = new LinkedHashMap<>();
        file.manifest().getSchemaMetadataMap().forEach((k, v) -> md.put(k, v.toByteArray()));
        this.schema = LanceSchema.fromProto(file.manifest().getFieldsList(), md);
        List<FragmentInfo> out = new ArrayList<>();
        file.manifest().getFragmentsList().forEach(f -> out.add(FragmentInfo.of(f)));
        this.fragments = List.copyOf(out);
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

    public List<FragmentInfo> fragments() {
        return fragments;
    }

    /** Live rows from the manifest alone (no data or deletion file is read). */
    public long countRows() {
        long n = 0;
        for (FragmentInfo f : fragments) {
            n += f.liveRows();
        }
        return n;
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
        return Flux.fromIterable(fragments)
                .concatMap(f -> deletions(f).map(rb -> Map.entry(f.id(), rb.getLongCardinality())))
                .collectMap(Map.Entry::getKey, Map.Entry::getValue, LinkedHashMap::new);
    }
}
