package io.javelin.tx.tree;

import io.javelin.tx.pb.FragmentTreeMutation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The shape of one version's tree, read from interiors only (leaf sizes come from their parent
 * references): what {@code javelin tree show} prints.
 *
 * @param height          edges from the root to the leaves (0: a childless root)
 * @param nodesPerLevel   interior nodes by level, level 1 = the root's children (leaves excluded)
 * @param leaves          number of leaves
 * @param leafBytes       total stored bytes of the leaves
 * @param nodeBytes       total stored bytes of the interior nodes
 * @param rootInline      whether the root is inline in the manifest
 * @param rootBytes       encoded size of the root (inline or external object)
 * @param rootChildren    number of children of the root
 * @param suffixLength    mutations_since_root
 * @param suffixBytes     encoded size of mutations_since_root
 * @param bufferedMutations mutations held in the root and interior buffers
 * @param fragments       derived fragment count
 * @param totalRows       derived physical rows
 * @param visibleRows     derived live rows
 * @param nextSequence    FragmentTree.next_action_sequence
 */
public record TreeShape(int height, List<Integer> nodesPerLevel, long leaves, long leafBytes, long nodeBytes,
        boolean rootInline, long rootBytes, int rootChildren, int suffixLength, long suffixBytes,
        long bufferedMutations, long fragments, long totalRows, long visibleRows, long nextSequence) {

    /** Walks the interiors of {@code tree} (never a leaf). */
    public static Mono<TreeShape> of(TreeSnapshot tree) {
        return Mono.defer(() -> {
            List<long[]> levels = new ArrayList<>(); // per level: nodes, bytes, buffered
            long[] leaves = new long[2];
            return walk(tree, tree.rootView, 1, levels, leaves).then(Mono.fromSupplier(() -> {
                List<Integer> perLevel = new ArrayList<>();
                long nodeBytes = 0;
                long buffered = tree.root.getBufferCount();
                for (long[] l : levels) {
                    perLevel.add((int) l[0]);
                    nodeBytes += l[1];
                    buffered += l[2];
                }
                long suffixBytes = 0;
                for (FragmentTreeMutation m : tree.suffix) {
                    suffixBytes += m.getSerializedSize();
                }
                return new TreeShape(tree.height(), List.copyOf(perLevel), leaves[0], leaves[1], nodeBytes,
                        tree.rootLocation == null, tree.root.getSerializedSize(), tree.root.getChildrenCount(),
                        tree.suffix.size(), suffixBytes, buffered, tree.fragmentCount(), tree.totalRows(),
                        tree.visibleRows(), tree.descriptor.getNextActionSequence());
            }));
        });
    }

    private static Mono<Void> walk(TreeSnapshot tree, NodeView view, int level, List<long[]> levels, long[] leaves) {
        return Flux.fromIterable(view.children()).concatMap(ref -> {
            if (ref.isLeaf()) {
                synchronized (leaves) {
                    leaves[0]++;
                    leaves[1] += ref.child().getObjectSize();
                }
                return Mono.<Void>empty();
            }
            return tree.reader.loadNode(ref, new Sequences(Set.of())).flatMap(child -> {
                synchronized (levels) {
                    while (levels.size() < level) {
                        levels.add(new long[3]);
                    }
                    long[] l = levels.get(level - 1);
                    l[0]++;
                    l[1] += ref.child().getObjectSize();
                    l[2] += child.buffer().size();
                }
                return walk(tree, child, level + 1, levels, leaves);
            });
        }).then();
    }

    /** A human summary, one item per line. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append("height:            ").append(height).append('\n');
        sb.append("root:              ").append(rootInline ? "inline" : "external").append(", ").append(rootChildren)
                .append(" children, ").append(rootBytes).append(" bytes\n");
        sb.append("interior nodes:    ").append(nodesPerLevel.isEmpty() ? "none" : nodesPerLevel + " per level")
                .append(", ").append(nodeBytes).append(" bytes\n");
        sb.append("leaves:            ").append(leaves).append(", ").append(leafBytes).append(" bytes\n");
        sb.append("fragments:         ").append(fragments).append(" (rows ").append(visibleRows).append(" live of ")
                .append(totalRows).append(")\n");
        sb.append("suffix:            ").append(suffixLength).append(" mutations, ").append(suffixBytes).append(" bytes\n");
        sb.append("buffered:          ").append(bufferedMutations).append(" mutations\n");
        sb.append("next sequence:     ").append(nextSequence).append('\n');
        return sb.toString();
    }
}
