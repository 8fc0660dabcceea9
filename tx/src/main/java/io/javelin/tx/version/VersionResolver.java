package io.javelin.tx.version;

import io.javelin.tx.CorruptManifestException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.VersionNotFoundException;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreEntry;
import io.javelin.tx.store.StoreNotFoundException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * Finds and reads manifests under {@code _versions/} with as few requests as the store allows: on a
 * lexically ordered store one LIST whose first V2 entry is the latest; elsewhere one LIST and a max.
 * Mixed naming schemes are an error, as in Lance, because writers could no longer agree on "next".
 */
public final class VersionResolver {

    /** Lance sanity-checks this many entries after the first V2 one. */
    private static final int V2_SANITY_WINDOW = 999;

    private final ManifestStore store;

    public VersionResolver(ManifestStore store) {
        this.store = store;
    }

    /** The latest committed version; errors with {@link VersionNotFoundException} on an empty dataset. */
    public Mono<ManifestLocation> latest() {
        if (!store.listsInLexicalOrder()) {
            return listAll().map(this::pickLatest);
        }
        // ordered store: the first page answers for V2 (the listing is cancelled after the window);
        // a V1 dataset needs the whole listing ("9.manifest" sorts after "10.manifest")
        return store.list(ManifestNaming.VERSIONS_DIR)
                .filter(e -> ManifestNaming.parseVersion(e.name()) > 0)
                .take(V2_SANITY_WINDOW + 1)
                .collectList()
                .flatMap(head -> head.isEmpty() || ManifestNaming.detect(head.get(0).name()) == ManifestNaming.V2
                        ? Mono.just(pickLatest(head))
                        : listAll().map(this::pickLatest));
    }

    private Mono<List<StoreEntry>> listAll() {
        return store.list(ManifestNaming.VERSIONS_DIR)
                .filter(e -> ManifestNaming.parseVersion(e.name()) > 0)
                .collectList();
    }

    private ManifestLocation pickLatest(List<StoreEntry> entries) {
        if (entries.isEmpty()) {
            throw new VersionNotFoundException("Dataset has no committed manifest under " + ManifestNaming.VERSIONS_DIR);
        }
        if (store.listsInLexicalOrder() && ManifestNaming.detect(entries.get(0).name()) == ManifestNaming.V2) {
            long prev = Long.MAX_VALUE;
            for (int i = 0; i < entries.size() && i <= V2_SANITY_WINDOW; i++) {
                String name = entries.get(i).name();
                long v = ManifestNaming.parseVersion(name);
                if (ManifestNaming.detect(name) != ManifestNaming.V2) {
                    throw mixed(name);
                }
                if (v >= prev) {
                    throw new InvalidTableMetadataException("V2 manifests not in descending version order at " + name);
                }
                prev = v;
            }
            return location(entries.get(0));
        }
        ManifestNaming scheme = null;
        StoreEntry best = null;
        for (StoreEntry e : entries) {
            ManifestNaming s = ManifestNaming.detect(e.name());
            if (scheme == null) {
                scheme = s;
            } else if (s != scheme) {
                throw mixed(e.name());
            }
            if (best == null || ManifestNaming.parseVersion(e.name()) > ManifestNaming.parseVersion(best.name())) {
                best = e;
            }
        }
        return location(best);
    }

    private static InvalidTableMetadataException mixed(String name) {
        return new InvalidTableMetadataException("Found multiple manifest naming schemes in "
                + ManifestNaming.VERSIONS_DIR + " (at " + name + ")");
    }

    private static ManifestLocation location(StoreEntry e) {
        return new ManifestLocation(ManifestNaming.parseVersion(e.name()), e.path(), ManifestNaming.detect(e.name()), e.size());
    }

    /** Every committed version, ascending. */
    public Mono<List<ManifestLocation>> list() {
        return store.list(ManifestNaming.VERSIONS_DIR)
                .filter(e -> ManifestNaming.parseVersion(e.name()) > 0)
                .map(VersionResolver::location)
                .collectList()
                .map(l -> {
                    List<ManifestLocation> out = new ArrayList<>(l);
                    out.sort(Comparator.comparingLong(ManifestLocation::version));
                    for (ManifestLocation loc : out) {
                        if (loc.naming() != out.get(0).naming()) {
                            throw mixed(loc.path());
                        }
                    }
                    return out;
                });
    }

    /** Reads and decodes the latest manifest. */
    public Mono<ManifestFile> readLatest() {
        return latest().flatMap(this::read);
    }

    public Mono<ManifestFile> read(ManifestLocation loc) {
        return store.read(loc.path()).map(b -> decode(loc.path(), b, loc.version()));
    }

    /**
     * Reads version {@code version}: the V2 name first (one GET on modern datasets), the V1 name on a miss.
     * {@code naming} may be null when the scheme is not known yet.
     */
    public Mono<ManifestFile> read(long version, ManifestNaming naming) {
        if (naming != null) {
            String path = naming.path(version);
            return store.read(path)
                    .onErrorMap(StoreNotFoundException.class, e -> notFound(version))
                    .map(b -> decode(path, b, version));
        }
        return read(version, ManifestNaming.V2)
                .onErrorResume(VersionNotFoundException.class, e -> read(version, ManifestNaming.V1));
    }

    /** The scheme version {@code version} was found under, probing like {@link #read(long, ManifestNaming)}. */
    public Mono<ManifestLocation> locate(long version) {
        String v2 = ManifestNaming.V2.path(version);
        return store.read(v2).map(b -> new ManifestLocation(version, v2, ManifestNaming.V2, b.length))
                .onErrorResume(StoreNotFoundException.class, e -> {
                    String v1 = ManifestNaming.V1.path(version);
                    return store.read(v1).map(b -> new ManifestLocation(version, v1, ManifestNaming.V1, b.length));
                })
                .onErrorMap(StoreNotFoundException.class, e -> notFound(version));
    }

    /**
     * The latest version starting from {@code latest_version_hint.json} and probing upward (for stores
     * where listing is expensive or unordered): the hinted version must exist, then v+1, v+2, ... are
     * probed until one is missing. Without a usable hint, falls back to {@link #latest()}.
     */
    public Mono<ManifestLocation> latestFromHint() {
        return hint()
                .flatMap(h -> locate(h).flatMap(this::probeUp))
                .onErrorResume(e -> e instanceof VersionNotFoundException || e instanceof io.javelin.tx.CorruptFileException,
                        e -> Mono.empty())
                .switchIfEmpty(Mono.defer(this::latest));
    }

    private Mono<ManifestLocation> probeUp(ManifestLocation known) {
        String next = known.naming().path(known.version() + 1);
        return store.read(next)
                .flatMap(b -> probeUp(new ManifestLocation(known.version() + 1, next, known.naming(), b.length)))
                .onErrorResume(StoreNotFoundException.class, e -> Mono.just(known));
    }

    /** The hinted latest version, or empty if there is no (readable) hint. Never trust it blindly. */
    public Mono<Long> hint() {
        return store.read(VersionHint.PATH).map(VersionHint::decode)
                .onErrorResume(StoreNotFoundException.class, e -> Mono.empty());
    }

    private static VersionNotFoundException notFound(long version) {
        return new VersionNotFoundException("Dataset version " + version + " does not exist");
    }

    private static ManifestFile decode(String path, byte[] bytes, long expectedVersion) {
        ManifestFile mf = ManifestCodec.decode(path, bytes);
        if (mf.version() != expectedVersion) {
            throw new CorruptManifestException(path, 0, "Manifest says version " + mf.version()
                    + " but its file name says " + expectedVersion);
        }
        return mf;
    }
}
