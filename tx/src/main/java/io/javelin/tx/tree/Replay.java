package io.javelin.tx.tree;

import static io.javelin.tx.tree.CorruptSnapshotException.check;

import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeMutation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Applies collected mutations to leaf records in action-sequence order, verifying every delta. */
final class Replay {

    private Replay() {
    }

    /** Groups mutations by target fragment, each group sorted by sequence. */
    static TreeMap<Long, List<FragmentTreeMutation>> byTarget(Iterable<FragmentTreeMutation> mutations) {
        TreeMap<Long, List<FragmentTreeMutation>> out = new TreeMap<>();
        for (FragmentTreeMutation m : mutations) {
            out.computeIfAbsent(Records.target(m.getAction()), k -> new ArrayList<>()).add(m);
        }
        for (List<FragmentTreeMutation> l : out.values()) {
            l.sort(Comparator.comparingLong(FragmentTreeMutation::getActionSequence));
        }
        return out;
    }

    /** Applies a sorted run of mutations to one record ({@code null} = absent). */
    static DataFragment applyRun(DataFragment record, List<FragmentTreeMutation> run, long watermark) {
        DataFragment r = record;
        for (FragmentTreeMutation m : run) {
            check(m.getActionSequence() > watermark, Rule.R51_BELOW_WATERMARK,
                    "mutation %d at or below leaf watermark %d", m.getActionSequence(), watermark);
            r = Records.applyVerified(r, m);
        }
        return r;
    }

    /**
     * Applies {@code mutations} to the sorted {@code records} of one range and returns the sorted
     * resulting records.
     */
    static List<DataFragment> apply(List<DataFragment> records, Iterable<FragmentTreeMutation> mutations, long watermark) {
        TreeMap<Long, List<FragmentTreeMutation>> groups = byTarget(mutations);
        if (groups.isEmpty()) {
            return records;
        }
        List<DataFragment> out = new ArrayList<>(records.size() + groups.size());
        var it = groups.entrySet().iterator();
        Map.Entry<Long, List<FragmentTreeMutation>> next = it.hasNext() ? it.next() : null;
        for (DataFragment f : records) {
            while (next != null && next.getKey() < f.getId()) {
                add(out, applyRun(null, next.getValue(), watermark));
                next = it.hasNext() ? it.next() : null;
            }
            if (next != null && next.getKey() == f.getId()) {
                add(out, applyRun(f, next.getValue(), watermark));
                next = it.hasNext() ? it.next() : null;
            } else {
                out.add(f);
            }
        }
        while (next != null) {
            add(out, applyRun(null, next.getValue(), watermark));
            next = it.hasNext() ? it.next() : null;
        }
        return out;
    }

    private static void add(List<DataFragment> out, DataFragment f) {
        if (f != null) {
            out.add(f);
        }
    }
}
