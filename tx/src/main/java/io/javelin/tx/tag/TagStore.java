package io.javelin.tx.tag;

import io.javelin.tx.RefAlreadyExistsException;
import io.javelin.tx.RefNotFoundException;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreAlreadyExistsException;
import io.javelin.tx.store.StoreNotFoundException;
import io.javelin.tx.version.ManifestLocation;
import io.javelin.tx.version.VersionResolver;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.TreeMap;
import reactor.core.publisher.Mono;

/**
 * Tags of the main branch: create, read, list, update, delete. Tags create no dataset version; they must
 * point at an existing manifest, whose size they record. Create is create-if-absent, so two concurrent
 * creators of one name cannot both win.
 */
public final class TagStore {

    public static final String DIR = "_refs/tags/";

    private final ManifestStore store;
    private final VersionResolver versions;
    private final Clock clock;

    public TagStore(ManifestStore store, Clock clock) {
        this.store = store;
        this.versions = new VersionResolver(store);
        this.clock = clock;
    }

    public static String path(String name) {
        return DIR + TagNames.check(name) + ".json";
    }

    public Mono<Tag> create(String name, long version, Map<String, String> metadata) {
        return Mono.defer(() -> {
            String path = path(name);
            return versions.locate(version).flatMap(loc -> {
                Instant now = clock.instant();
                Tag tag = new Tag(name, null, version, now, now, loc.size(), metadata);
                return store.putIfAbsent(path, TagJson.encode(tag)).thenReturn(tag);
            }).onErrorMap(StoreAlreadyExistsException.class, e -> new RefAlreadyExistsException("Tag " + name + " already exists"));
        });
    }

    /**
     * A tag on version {@code version} of branch {@code branch}, whose versions live in {@code branchStore}
     * (the store rooted at {@code tree/{branch}/}); the tag file stays at this root, as Lance keeps it.
     */
    public Mono<Tag> create(String name, String branch, ManifestStore branchStore, long version, Map<String, String> metadata) {
        return Mono.defer(() -> {
            String path = path(name);
            return new VersionResolver(branchStore).locate(version).flatMap(loc -> {
                Instant now = clock.instant();
                Tag tag = new Tag(name, branch, version, now, now, loc.size(), metadata);
                return store.putIfAbsent(path, TagJson.encode(tag)).thenReturn(tag);
            }).onErrorMap(StoreAlreadyExistsException.class, e -> new RefAlreadyExistsException("Tag " + name + " already exists"));
        });
    }

    public Mono<Tag> read(String name) {
        return Mono.defer(() -> {
            String path = path(name);
            return store.read(path).map(b -> TagJson.decode(name, path, b))
                    .onErrorMap(StoreNotFoundException.class, e -> new RefNotFoundException("Tag " + name + " does not exist"));
        });
    }

    /** Moves an existing tag to {@code version}, keeping {@code createdAt} and metadata. */
    public Mono<Tag> update(String name, long version) {
        return read(name).flatMap(old -> versions.locate(version).flatMap((ManifestLocation loc) -> {
            Tag tag = new Tag(name, old.branch(), version, old.createdAt(), clock.instant(), loc.size(), old.metadata());
            return store.put(path(name), TagJson.encode(tag)).thenReturn(tag);
        }));
    }

    public Mono<Void> delete(String name) {
        return read(name).flatMap(t -> store.delete(path(name)));
    }

    /** All tags by name. Files that are not {@code *.json} with a valid tag name are ignored. */
    public Mono<Map<String, Tag>> list() {
        return store.list(DIR)
                .filter(e -> e.name().endsWith(".json") && e.path().equals(DIR + e.name()))
                .map(e -> e.name().substring(0, e.name().length() - ".json".length()))
                .filter(TagStore::validName)
                .flatMap(this::read, 8)
                .collectMap(Tag::name, t -> t, TreeMap::new)
                .map(m -> (Map<String, Tag>) m);
    }

    private static boolean validName(String n) {
        try {
            TagNames.check(n);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

}
