package io.javelin.objectstore;

import java.util.List;

/** Entry point for the object-store layer: which URI schemes this build can open. */
public final class ObjectStores {

    private ObjectStores() {
    }

    /** URI schemes with a store implementation in this build. */
    public static List<String> supportedSchemes() {
        return List.of("file", "memory");
    }
}
