package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import io.javelin.tx.rowid.RowIdCodec;
import io.javelin.tx.rowid.RowVersions;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Lance's row version columns (uint64): the dataset version that created each row and the one that last
 * updated it, from the fragment's version runs (spec 001 "row version tracking"); a fragment without them
 * (older writers) reads as version 1, as Javelin's compaction assumes. External version files are not read yet.
 */
final class RowVersionColumns {

    static final String CREATED = "_row_created_at_version";
    static final String UPDATED = "_row_last_updated_at_version";
    static final Set<String> NAMES = Set.of(CREATED, UPDATED);

    private RowVersionColumns() {
    }

    static FieldVector vector(String name, Dataset ds, long fragmentId, long[] offsets, BufferAllocator allocator) {
        FragmentInfo f = ds.fragments().stream().filter(x -> x.id() == fragmentId).findFirst()
                .orElseThrow(() -> new IllegalStateException("fragment " + fragmentId + " is not in the dataset"));
        var frag = f.fragment();
        List<RowVersions.Run> runs;
        if (name.equals(CREATED) && frag.hasInlineCreatedAtVersions()) {
            runs = RowIdCodec.decodeVersions(frag.getInlineCreatedAtVersions().toByteArray());
        } else if (name.equals(UPDATED) && frag.hasInlineLastUpdatedAtVersions()) {
            runs = RowIdCodec.decodeVersions(frag.getInlineLastUpdatedAtVersions().toByteArray());
        } else {
            runs = RowVersions.uniform(f.physicalRows(), 1);
        }
        UInt8Vector v = new UInt8Vector(new Field(name, FieldType.notNullable(new ArrowType.Int(64, false)), null), allocator);
        try {
            v.allocateNew(offsets.length);
            int run = 0;
            long runStart = 0;
            for (int i = 0; i < offsets.length; i++) {
                long at = offsets[i];
                if (at < runStart) {
                    run = 0;
                    runStart = 0;
                }
                while (run < runs.size() && at >= runStart + runs.get(run).rows()) {
                    runStart += runs.get(run).rows();
                    run++;
                }
                if (run == runs.size()) {
                    throw new IllegalStateException("fragment " + fragmentId + " has no row version for offset " + at);
                }
                v.set(i, runs.get(run).version());
            }
            v.setValueCount(offsets.length);
            return v;
        } catch (RuntimeException e) {
            v.close();
            throw e;
        }
    }
}
