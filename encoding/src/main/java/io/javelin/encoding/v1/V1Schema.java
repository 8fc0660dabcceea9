package io.javelin.encoding.v1;

import io.javelin.encoding.pb.file.Field;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The schema a legacy data file of a dataset is read with: legacy files of datasets do not describe
 * themselves, so (as upstream) the dataset's schema applies, cut to the fragment's {@code DataFile.fields},
 * whose first and largest ids also bound the file's page table.
 *
 * @param fields       the dataset schema, flattened pre-order as in the manifest
 * @param metadata     the dataset schema's metadata
 * @param fileFieldIds the data file's {@code DataFile.fields}
 */
public record V1Schema(List<Field> fields, Map<String, String> metadata, List<Integer> fileFieldIds) {

    public V1Schema {
        fields = List.copyOf(fields);
        metadata = Map.copyOf(metadata);
        fileFieldIds = List.copyOf(fileFieldIds);
    }

    /** The dataset fields this file holds, with their ancestors, in schema order. */
    List<Field> fileFields() {
        Map<Integer, Field> byId = new HashMap<>();
        fields.forEach(f -> byId.put(f.getId(), f));
        Set<Integer> keep = new HashSet<>();
        for (int id : fileFieldIds) {
            for (Field f = byId.get(id); f != null && keep.add(f.getId()); f = byId.get(f.getParentId())) {
                // ancestors come along: a child is read inside its parent
            }
        }
        List<Field> out = new ArrayList<>();
        for (Field f : fields) {
            if (keep.contains(f.getId())) {
                out.add(f);
            }
        }
        return out;
    }

    /** The smallest field id of the page table: the first of {@code DataFile.fields}, as upstream. */
    int minPageId() {
        return fileFieldIds.isEmpty() ? 0 : fileFieldIds.get(0);
    }

    int maxPageId() {
        int max = fileFieldIds.isEmpty() ? 0 : Integer.MIN_VALUE;
        for (int id : fileFieldIds) {
            max = Math.max(max, id);
        }
        for (Field f : fileFieldIds.isEmpty() ? fields : List.<Field>of()) {
            max = Math.max(max, f.getId());
        }
        return max;
    }
}
