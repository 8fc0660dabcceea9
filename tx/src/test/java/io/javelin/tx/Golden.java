package io.javelin.tx;

import io.javelin.tx.store.InMemoryManifestStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The Lance 7.0.0 golden dataset copied into test resources (see golden/README in the shared folder). */
public final class Golden {

    public static final String VERSIONS_DELETES = "versions_deletes";

    private Golden() {
    }

    public static Path root(String dataset) {
        try {
            return Path.of(Golden.class.getResource("/golden/" + dataset).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static byte[] bytes(String dataset, String relative) {
        try {
            return Files.readAllBytes(root(dataset).resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<String> files(String dataset, String dir) {
        try (Stream<Path> s = Files.list(root(dataset).resolve(dir))) {
            return s.map(p -> dir + "/" + p.getFileName()).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every file of the dataset except data files (metadata-level tests do not need them). */
    public static InMemoryManifestStore store(String dataset, boolean lexical) {
        InMemoryManifestStore store = new InMemoryManifestStore(lexical);
        Path root = root(dataset);
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                String rel = root.relativize(p).toString().replace('\\', '/');
                store.seed(rel, Files.readAllBytes(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return store;
    }
}
