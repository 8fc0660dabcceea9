package io.javelin.tx.tree;

import io.javelin.tx.pb.FragmentTreeMutation;
import java.util.List;

/**
 * A decoded, validated root or interior: its children with inherited ranges and its buffer.
 *
 * @param height node height (children are one lower); a childless root has height 1 by convention
 */
record NodeView(List<ChildRef> children, List<FragmentTreeMutation> buffer, long lo, long hi, int height) {

    /** Index of the child routing {@code id}: the rightmost child whose min_key is at most id. */
    int route(long id) {
        int lo = 0;
        int hi = children.size() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (children.get(mid).child().getMinKey() <= id) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }
}
