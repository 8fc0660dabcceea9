package io.javelin.engine;

import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStores;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.BasePath;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.ObjectStoreManifestStore;
import java.nio.file.Path;

/**
 * Resolution of {@code base_id} (shallow clones, branches): {@code base_paths[id].path} is an absolute URI or
 * local path; a dataset root keeps Lance's sub-directories ({@code data/}, {@code _deletions/}), a plain
 * directory holds the files directly. Stores are opened once per dataset handle with its storage options.
 */
final class BasePaths {

    record Base(ObjectStore store, boolean datasetRoot) {
        String dir(String sub) {
            return datasetRoot ? sub : "";
        }

        ManifestStore manifests() {
            if (!datasetRoot) {
                throw new InvalidTableMetadataException("Deletion files under a non-root base path are not supported");
            }
            return new ObjectStoreManifestStore(store, "");
        }
    }

    private BasePaths() {
    }

    static Base resolve(Dataset ds, int id) {
        for (BasePath b : ds.snapshot().manifestFile().manifest().getBasePathsList()) {
            if (b.getId() == id) {
                ObjectStore store = ds.handle().bases.computeIfAbsent(b.getPath(),
                        p -> ObjectStores.open(p, ds.handle().options));
                return new Base(store, b.getIsDatasetRoot());
            }
        }
        throw new InvalidTableMetadataException("Unknown base path id " + id);
    }

    /** How a root is written into {@code BasePath.path}: a plain absolute path for local datasets (as Lance). */
    static String rootPath(String uri) {
        if (uri.startsWith("file://")) {
            return Path.of(java.net.URI.create(uri)).toAbsolutePath().normalize().toString();
        }
        if (!uri.contains("://")) {
            return Path.of(uri).toAbsolutePath().normalize().toString();
        }
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    /** {@code uri} + "/" + {@code rel}. */
    static String child(String uri, String rel) {
        return (uri.endsWith("/") ? uri : uri + "/") + rel;
    }
}
