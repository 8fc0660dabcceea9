package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.javelin.tx.pb.FragmentMetadataProtos;
import io.javelin.tx.pb.Manifest;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The tree's protobuf messages have exactly the shape of the draft {@code fragment_metadata.proto}
 * (lance-format/lance@2eeadb6a): per message, every field's name, number, type, cardinality, oneof
 * and explicit presence, and no other field. A renumbered or retyped field would make our tree
 * objects unreadable by upstream and theirs by us, so each is pinned here.
 */
class ProtoShapeTest {

    /** {@code name=number type [repeated] [oneof:NAME] [optional]}, one string per field, in field-number order. */
    static final Map<String, List<String>> DRAFT = new LinkedHashMap<>();

    static {
        DRAFT.put("FragmentTreeMetadata", List.of("tree=1 FragmentTree oneof:layout"));
        DRAFT.put("FragmentTree", List.of("inline_root=1 FragmentTreeRoot oneof:root", "root_uuid=2 bytes oneof:root",
                "mutations_since_root=3 FragmentTreeMutation repeated", "next_action_sequence=4 uint64"));
        DRAFT.put("FragmentTreeRoot", List.of("children=1 FragmentTreeChild repeated",
                "buffer=2 FragmentTreeMutation repeated", "next_action_sequence=3 uint64"));
        DRAFT.put("FragmentTreeChild", List.of("path=1 string", "base_id=2 uint32 optional", "min_key=3 uint64",
                "num_keys=4 uint64", "height=5 uint32", "num_children=6 uint32", "total_rows=7 uint64",
                "object_size=8 uint64", "materialized_through_action_sequence=9 uint64", "visible_rows=10 uint64"));
        DRAFT.put("FragmentTreeNode", List.of("children=1 FragmentTreeChild repeated",
                "buffer=2 FragmentTreeMutation repeated"));
        DRAFT.put("FragmentTreeMutation", List.of("action_sequence=1 uint64", "action=2 FragmentAction",
                "fragment_count_delta=3 sint64", "total_rows_delta=4 sint64", "visible_rows_delta=5 sint64"));
        DRAFT.put("FragmentAction", List.of("upsert_fragment=1 DataFragment oneof:action",
                "remove_fragment=2 uint64 oneof:action", "add_data_file=3 AddDataFile oneof:action",
                "remove_data_file=4 RemoveDataFile oneof:action", "add_deletion_file=5 AddDeletionFile oneof:action",
                "clear_deletion_file=6 ClearDeletionFile oneof:action",
                "replace_data_file=7 ReplaceDataFile oneof:action"));
        DRAFT.put("AddDataFile", List.of("frag_id=1 uint64", "file=2 DataFile"));
        DRAFT.put("RemoveDataFile", List.of("frag_id=1 uint64", "path=2 string"));
        DRAFT.put("AddDeletionFile", List.of("frag_id=1 uint64", "deletion_file=2 DeletionFile"));
        DRAFT.put("ClearDeletionFile", List.of("frag_id=1 uint64"));
        DRAFT.put("ReplaceDataFile", List.of("frag_id=1 uint64", "expected_path=2 string", "path=3 string",
                "file_size_bytes=4 uint64", "base_id=5 uint32 optional"));
    }

    static String shape(FieldDescriptor f) {
        StringBuilder s = new StringBuilder(f.getName()).append('=').append(f.getNumber()).append(' ');
        s.append(f.getJavaType() == FieldDescriptor.JavaType.MESSAGE ? f.getMessageType().getName()
                : f.getType().name().toLowerCase(java.util.Locale.ROOT));
        if (f.isRepeated()) {
            s.append(" repeated");
        }
        if (f.getRealContainingOneof() != null) {
            s.append(" oneof:").append(f.getRealContainingOneof().getName());
        } else if (f.hasPresence() && f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
            s.append(" optional");
        }
        return s.toString();
    }

    @Test
    void everyTreeMessageHasExactlyTheDraftFields() {
        for (var e : DRAFT.entrySet()) {
            Descriptor d = FragmentMetadataProtos.getDescriptor().findMessageTypeByName(e.getKey());
            assertThat(d).as(e.getKey()).isNotNull();
            assertThat(d.getFile().getPackage()).isEqualTo("lance.table");
            assertThat(d.getFields().stream().map(ProtoShapeTest::shape).toList()).as(e.getKey())
                    .containsExactlyElementsOf(e.getValue());
        }
    }

    @Test
    void manifestCarriesTheTreeMetadataAndTheFeatureFlagIs4096() {
        FieldDescriptor f = Manifest.getDescriptor().findFieldByName("fragment_tree");
        assertThat(f).isNotNull();
        assertThat(f.getMessageType().getFullName()).isEqualTo("lance.table.FragmentTreeMetadata");
        assertThat(f.isRepeated()).isFalse();
        assertThat(io.javelin.tx.manifest.FeatureFlags.FRAGMENT_TREE).isEqualTo(4096L);
    }
}
