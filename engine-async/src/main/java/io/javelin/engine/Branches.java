package io.javelin.engine;

import java.util.Set;
import reactor.core.publisher.Mono;

/** Branches of a dataset (placeholder until the layout is verified). */
final class Branches {

    private Branches() {
    }

    /** Files of the root that some branch version still names (cleanup must keep them). */
    static Mono<Set<String>> referencesIntoRoot(Dataset.Handle h) {
        return Mono.just(Set.of());
    }
}
