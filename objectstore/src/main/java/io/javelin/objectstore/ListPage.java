package io.javelin.objectstore;

import java.util.List;

/**
 * One page of a listing.
 *
 * @param objects        objects directly matched (all objects under the prefix without a delimiter)
 * @param commonPrefixes "directories" rolled up by the delimiter, each ending in it; empty without one
 * @param nextPageToken  token for the next page, or null on the last page
 */
public record ListPage(List<ObjectMeta> objects, List<String> commonPrefixes, String nextPageToken) {

    public ListPage {
        objects = List.copyOf(objects);
        commonPrefixes = List.copyOf(commonPrefixes);
    }

    public boolean isLast() {
        return nextPageToken == null;
    }
}
