package io.javelin.encoding.v21;

import io.javelin.encoding.arrow.Node;
import io.javelin.encoding.arrow.Values;
import org.apache.arrow.vector.types.pojo.Field;

/** Shared leaf-node construction (fixed-size lists, packed structs) for both reader generations. */
public final class StructuralFieldReaderSupport {

    private StructuralFieldReaderSupport() {
    }

    public static Node leafNode(Field arrow, int length, byte[] validity, Values values) {
        return StructuralFieldReader.leafNode(arrow, length, validity, values);
    }
}
