package io.javelin.tx.schema;

import io.javelin.encoding.pb.file.Field;
import java.util.List;

/**
 * One node of a Lance schema: the field id that data files reference, its parent id (-1 at top level),
 * the Lance logical type name ({@code int64}, {@code timestamp:us:UTC}, {@code fixed_size_list:float:128},
 * ...) and its children. {@code source} keeps the protobuf as read so that members we do not model
 * (encoding, dictionary, primary-key positions, unknown fields) survive a rewrite byte for byte.
 */
public record LanceField(int id, int parentId, String name, String logicalType, boolean nullable,
                         List<LanceField> children, Field source) {

    public LanceField {
        children = List.copyOf(children);
    }

    public LanceField child(String childName) {
        for (LanceField c : children) {
            if (c.name.equals(childName)) {
                return c;
            }
        }
        return null;
    }
}
