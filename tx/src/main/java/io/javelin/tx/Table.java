package io.javelin.tx;

import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.tag.TagStore;
import io.javelin.tx.version.ManifestLocation;
import io.javelin.tx.version.VersionResolver;
import java.time.Clock;
import java.util.List;
import reactor.core.publisher.Mono;

/** Opens versions of a Lance table (metadata only): latest, by number, by tag. */
public final class Table {

    private final ManifestStore store;
    private final VersionResolver versions;
    private final TagStore tags;

    public Table(ManifestStore store) {
        this.store = store;
        this.versions = new VersionResolver(store);
        this.tags = new TagStore(store, Clock.systemUTC());
    }

    public VersionResolver versions() {
        return versions;
    }

    public TagStore tags() {
        return tags;
    }

    /** The latest version; a corrupt latest manifest is an error (as in Lance), see {@link #openLastGood()}. */
    public Mono<Snapshot> open() {
        return versions.readLatest().flatMap(this::snapshot);
    }

    public Mono<Snapshot> checkout(long version) {
        return versions.read(version, null).flatMap(this::snapshot);
    }

    public Mono<Snapshot> checkout(String tag) {
        return tags.read(tag).flatMap(t -> checkout(t.version()));
    }

    /**
     * Recovery: the newest version whose manifest decodes and validates, skipping newer broken ones
     * (a torn or hostile manifest must not make the older history unreadable).
     */
    public Mono<Snapshot> openLastGood() {
        return versions.list().flatMap(all -> newestGood(all, all.size() - 1, null));
    }

    private Mono<Snapshot> newestGood(List<ManifestLocation> all, int i, TxException last) {
        if (i < 0) {
            return Mono.error(last != null ? last : new VersionNotFoundException("Dataset has no readable version"));
        }
        return versions.read(all.get(i)).flatMap(this::snapshot)
                .onErrorResume(TxException.class, e -> e instanceof UnsupportedFeatureException
                        ? Mono.error(e) // readable by a newer engine: not "broken", do not silently skip
                        : newestGood(all, i - 1, e));
    }

    /**
     * The snapshot of a manifest already in hand (e.g. the one a commit just published, as written):
     * saves reading it back.
     */
    public Mono<Snapshot> snapshotOf(ManifestFile f) {
        return snapshot(f);
    }

    /** A flat version needs nothing more; a tree version reads at most its external root (spec 000). */
    private Mono<Snapshot> snapshot(ManifestFile f) {
        if (f.manifest().hasFragmentTree()) {
            return io.javelin.tx.tree.TreeTables.catalog(store, f.manifest()).map(c -> new Snapshot(store, f, c));
        }
        return Mono.just(new Snapshot(store, f));
    }
}
