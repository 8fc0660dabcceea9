package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.engine.DatasetNotFoundException;
import java.util.Optional;

/**
 * Blocking entry points for Spark's threads (driver planning, executor tasks): Spark calls the connector
 * synchronously, so the reactive API is awaited here, never on a Reactor thread.
 */
final class Datasets {

    private Datasets() {
    }

    /** Opens the dataset at the version or tag {@code o} pins, else the latest. */
    static Dataset open(String uri, JavelinOptions o) {
        if (o.version() != null) {
            return Dataset.open(uri, o.storage(), o.version()).block();
        }
        if (o.tag() != null) {
            return Dataset.open(uri, o.storage(), o.tag()).block();
        }
        return Dataset.open(uri, o.storage()).block();
    }

    static Optional<Dataset> openIfExists(String uri, JavelinOptions o) {
        try {
            return Optional.of(open(uri, o));
        } catch (DatasetNotFoundException e) {
            if (o.version() != null || o.tag() != null) {
                throw e; // a missing version of an existing dataset is an error, not an empty table
            }
            return Optional.empty();
        }
    }
}
