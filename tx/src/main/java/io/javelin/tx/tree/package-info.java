/**
 * The fragment metadata tree (proposed Lance format change, spec 000): fragment records stored in
 * immutable leaves under {@code _bt/}, routed by fragment id, with validated mutations buffered above
 * the leaves.
 *
 * <h2>Pieces</h2>
 * <ul>
 *   <li>{@link io.javelin.tx.tree.TreeSnapshot} – opens one version lazily (at most one GET: the
 *       external root; never a LIST), derives counts from summaries and deltas, resolves fragments
 *       along their routing path, streams every fragment with parallel leaf reads, and computes
 *       cleanup reachability. Every decoded object is validated against its parent reference;
 *       violations raise {@link io.javelin.tx.tree.CorruptSnapshotException} naming a
 *       {@link io.javelin.tx.tree.Rule}.</li>
 *   <li>{@link io.javelin.tx.tree.TreeWriter} – builds a tree from a flat list (creation, in-place
 *       conversion, overwrite), commits {@link io.javelin.tx.tree.FragmentEdit}s (suffix path,
 *       root buffer, drains to children with leaf split/merge, interior split/merge, root growth
 *       and collapse), and restores by reusing the restored version's root. The returned descriptor
 *       only names objects already written.</li>
 *   <li>{@link io.javelin.tx.tree.NativeOperations} and {@link io.javelin.tx.tree.Lowering} – native
 *       Lance operations lowered to the smallest storage actions; every candidate lowering is
 *       verified by applying it, else the record is upserted whole.</li>
 *   <li>{@link io.javelin.tx.tree.LeafSchema} / {@link io.javelin.tx.tree.LeafArrow} – the exact Arrow
 *       leaf schema and its validating conversion; {@link io.javelin.tx.tree.LeafCodec} turns a leaf
 *       batch into object bytes ({@link io.javelin.tx.tree.LanceLeafCodec}: a Lance file written and read
 *       by the encoding module).</li>
 *   <li>{@link io.javelin.tx.tree.TreeClones} – the first manifest of a shallow clone or branch:
 *       an inline root of its own, source subtrees shared through the new BasePath (copy-and-remap).</li>
 *   <li>{@link io.javelin.tx.tree.TreeStore} – the narrow object storage the tree uses;
 *       {@link io.javelin.tx.tree.MemoryTreeStore} counts every request.</li>
 * </ul>
 *
 * <h2>Decisions the spec leaves to writers</h2>
 * <ul>
 *   <li>Feature flag 4096 (2^12), as spec 000 and the upstream flag table say; upstream's proto
 *       comment "bit 11" is stale (2^11 is FLAG_UNSTABLE_SPILLED_ROW_LINEAGE in that table).</li>
 *   <li>Sequences: each commit takes {@code [next, next + n)} in action order. A drained leaf's
 *       watermark is the highest sequence applied to it (or its previous watermark); drains always
 *       push a parent's complete bucket for a child, so no ancestor keeps a lower sequence for that
 *       range.</li>
 *   <li>Fan-out is configurable but at least 3 (with at most two children per interior, three leaves
 *       cannot be split into interiors of two or more children).</li>
 *   <li>{@code remove_data_file} of a missing path and {@code clear_deletion_file} without a deletion
 *       file are no-ops but need the fragment to exist; {@code remove_fragment} of an absent fragment
 *       is a no-op; {@code replace_data_file} of a missing path is corrupt.</li>
 *   <li>Budgets ({@link io.javelin.tx.tree.TreeConfig#defaults()}): smaller inline root, suffix and
 *       buffers than upstream's, which halves the amortized bytes of a stream of small commits.</li>
 *   <li>Leaves are written as Lance 2.2 files (the spec allows any version).</li>
 *   <li>A deletion file stored in the tree must carry {@code num_deleted_rows > 0} (0 cannot be told
 *       apart from "absent" in proto3).</li>
 *   <li>File edits that need no prior record ({@code add_data_file}, {@code replace_data_file}) are
 *       trusted to target existing fragments: the transaction layer's native validation checks
 *       that, as upstream does.</li>
 * </ul>
 */
package io.javelin.tx.tree;
