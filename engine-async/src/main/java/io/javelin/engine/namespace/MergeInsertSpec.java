package io.javelin.engine.namespace;

import java.util.List;

/** The spec's MergeInsertIntoTable clauses: join keys and what to do with matched / unmatched rows. */
public record MergeInsertSpec(List<String> on, boolean whenMatchedUpdateAll, String whenMatchedUpdateAllFilter,
                              boolean whenNotMatchedInsertAll, boolean whenNotMatchedBySourceDelete,
                              String whenNotMatchedBySourceDeleteFilter) {

    public MergeInsertSpec {
        if (on == null || on.isEmpty()) {
            throw NamespaceException.invalid("merge-insert needs at least one 'on' column");
        }
        on = List.copyOf(on);
    }

    /** Upsert on {@code keys}: update matched rows, insert the others. */
    public static MergeInsertSpec upsert(String... keys) {
        return new MergeInsertSpec(List.of(keys), true, null, true, false, null);
    }
}
