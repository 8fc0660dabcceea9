package io.javelin.tx.tree;

/**
 * The numbered reader rules of the fragment metadata tree (docs/table-format.md §7.1, spec 000).
 * Every {@link CorruptSnapshotException} names the rule it enforces, so tests can assert that a
 * tampered property is rejected for the right reason.
 */
public enum Rule {
    R01_FLAGS_AGREE("reader/writer flag 4096 and Manifest.fragment_tree must agree"),
    R02_FRAGMENTS_EMPTY("a tree table must leave Manifest.fragments empty"),
    R03_LAYOUT("FragmentTreeMetadata.layout must select exactly one recognized layout"),
    R04_ONE_ROOT("FragmentTree must hold exactly one of inline_root and root_uuid"),
    R05_INLINE_NO_SUFFIX("an inline root must have no mutations_since_root"),
    R06_ROOT_UUID("root_uuid must be exactly 16 bytes"),
    R08_OBJECT_ENCODING("tree object must decode as its protobuf or leaf format"),
    R09_PATH("tree object paths must begin with _bt/ and stay inside it"),
    R10_EMPTY_PATH("child path must be non-empty"),
    R11_DUPLICATE_CHILD("resolved child locations must be unique within a child list"),
    R12_BASE_ID("base_id must name a BasePath with is_dataset_root; ids unique"),
    R15_LEAF_SCHEMA("leaf schema must match exactly"),
    R16_LEAF_IDS("leaf ids must be strictly increasing and fit in u32"),
    R17_FRAGMENT_META("fragment_meta must have id 0 and no files or overlays"),
    R19_OVERLAY_META("overlay_meta must not carry data_file"),
    R20_MAPPING("mapping vectors must be i32 little-endian with valid keys and DataFile rules"),
    R23_COUNTS("deletion files must carry num_deleted_rows <= physical_rows"),
    R24_LEAF_SUMMARY("leaf summary must match the decoded records"),
    R27_FAN_OUT("interior nodes need at least two children"),
    R28_ORDER("children must be ordered by min_key and partition the parent range"),
    R30_BUFFER_RANGE("buffered mutation targets must lie in the node's range"),
    R31_HEIGHT("child heights must be one less than their parent's"),
    R32_LEAF_NONEMPTY("a leaf holds at least one record and has no children"),
    R33_NUM_CHILDREN("num_children must equal the decoded child count"),
    R34_NUM_KEYS("num_keys must equal children plus buffer deltas"),
    R35_ROWS("total/visible rows must equal children plus buffer deltas, visible <= total"),
    R36_OBJECT_SIZE("object_size must be nonzero and equal the fetched length"),
    R37_MIN_KEY("min_key must be at most 2^32-1 and inside the parent range"),
    R38_LEAF_RANGE("leaf ids must lie in the leaf's inherited range"),
    R39_ACTION("mutation must carry exactly one recognized action with its payload"),
    R40_DELTAS("mutation deltas must match the recomputed record change"),
    R43_MISSING_FRAGMENT("action modifies a fragment that does not exist"),
    R44_REPLACE_SLOT("replace_data_file must find its expected path"),
    R46_DERIVED_COUNTS("derived version counts must be consistent"),
    R47_SEQUENCE("mutation sequences must be nonzero and unique"),
    R48_ROOT_SEQUENCE("root next_action_sequence must bound its buffers and watermarks"),
    R49_SUFFIX_SEQUENCE("mutations_since_root must lie in [root.next, tree.next)"),
    R50_WATERMARK("interior children must have watermark 0"),
    R51_BELOW_WATERMARK("a mutation must be above its leaf's watermark"),
    R53_MAX_FRAGMENT_ID("fragment ids must be at most Manifest.max_fragment_id");

    private final String description;

    Rule(String description) {
        this.description = description;
    }

    public String description() {
        return description;
    }
}
