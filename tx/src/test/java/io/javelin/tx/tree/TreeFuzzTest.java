package io.javelin.tx.tree;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.testing.FuzzSweep;
import io.javelin.tx.TxException;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.FragmentTreeMetadata;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the fragment-tree decoders: the manifest's {@code FragmentTreeMetadata}, external roots,
 * interior nodes and leaves (Arrow IPC). A two-level tree with buffered mutations is built, one
 * object is replaced by the input, and the snapshot is opened, listed and point-resolved. Contract:
 * a correct answer or {@link CorruptSnapshotException} (or a typed {@link TxException}) — never
 * another exception, a hang or an unbounded allocation.
 *
 * <p>Node and leaf inputs are fitted to the referenced {@code object_size} (cut or zero-padded);
 * otherwise every mutation would stop at the size check (rule R36) and never reach the decoder.
 * Coverage-guided: {@code JAZZER_FUZZ=1 ./mvnw -o -pl tx -am test -Dtest=TreeFuzzTest#leaf -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class TreeFuzzTest {

    enum Kind { METADATA, ROOT, NODE, LEAF }

    /** A built tree and the pristine bytes of one object of each kind. */
    static final class Target implements AutoCloseable {
        final TreeFixture fx = new TreeFixture(IoTest.deep().withSuffixBytes(0).withBufferBytes(2048));
        final FragmentTreeMetadata meta;
        final long max;
        final ObjectLocation root;
        final ObjectLocation node;
        final ObjectLocation leaf;

        Target() {
            List<DataFragment> frags = new ArrayList<>(TreeFixture.frags(1500));
            for (int i = 0; i < frags.size(); i += 11) {
                frags.set(i, TreeFixture.withDeletes(frags.get(i), 3, 1));
            }
            max = frags.size() - 1;
            TreeSnapshot base = fx.open(fx.writer.build(frags, 1).block().metadata(), max);
            List<FragmentEdit> edits = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                edits.add(new FragmentEdit.Remove(i * 13 + 1));
            }
            meta = fx.writer.commit(base, edits, max).block().metadata();
            root = pick("_bt/root/");
            node = pick("_bt/node/");
            leaf = pick("_bt/leaf/");
        }

        private ObjectLocation pick(String prefix) {
            return fx.store.locations().stream().filter(l -> l.path().startsWith(prefix)).sorted(
                    (a, b) -> a.path().compareTo(b.path())).findFirst().orElseThrow();
        }

        byte[] pristine(Kind k) {
            return switch (k) {
                case METADATA -> meta.toByteArray();
                case ROOT -> fx.store.peek(rootLocation());
                case NODE -> fx.store.peek(node);
                case LEAF -> fx.store.peek(leaf);
            };
        }

        ObjectLocation rootLocation() {
            return new ObjectLocation("", TreePaths.rootPath(meta.getTree().getRootUuid()));
        }

        /** Opens with {@code input} in place of one object; restores it afterwards. */
        void run(Kind kind, byte[] input) {
            ObjectLocation loc = switch (kind) {
                case METADATA -> null;
                case ROOT -> rootLocation();
                case NODE -> node;
                case LEAF -> leaf;
            };
            byte[] original = loc == null ? null : fx.store.peek(loc);
            FragmentTreeMetadata m = meta;
            // a child allocator per input: closing it proves the decode released every buffer
            org.apache.arrow.memory.BufferAllocator child = fx.allocator.newChildAllocator("fuzz", 0, Long.MAX_VALUE);
            TreeEnv env = new TreeEnv(fx.store, fx.env.codec(), child, fx.config);
            Throwable outcome = null;
            try {
                if (kind == Kind.METADATA) {
                    try {
                        m = FragmentTreeMetadata.parseFrom(input);
                    } catch (InvalidProtocolBufferException e) {
                        throw new FuzzSweep.Rejected(e);
                    }
                } else {
                    byte[] bytes = kind == Kind.ROOT ? input : Arrays.copyOf(input, original.length);
                    fx.store.tamper(loc, bytes);
                }
                TreeSnapshot s = TreeSnapshot.open(env, m, fx.datasets, max).block();
                List<DataFragment> all = s.fragments().collectList().block();
                assertThat((long) all.size()).isEqualTo(s.fragmentCount());
                TreeSet<Long> ids = new TreeSet<>(List.of(0L, 2L, 500L, 1499L));
                s.resolveAll(ids).block();
            } catch (CorruptSnapshotException | TxException e) {
                outcome = e;
                throw new FuzzSweep.Rejected(e);
            } catch (java.util.NoSuchElementException e) {
                // the memory store's "not found" (a mutated uuid names an object that does not exist)
                if (!String.valueOf(e.getMessage()).startsWith("no such object")) {
                    throw e;
                }
                throw new FuzzSweep.Rejected(e);
            } finally {
                if (loc != null) {
                    fx.store.tamper(loc, original);
                }
                try {
                    child.close();
                } catch (IllegalStateException leak) {
                    throw new AssertionError("decoding leaked Arrow memory: " + leak.getMessage().lines().findFirst().orElse("")
                            + " (outcome: " + outcome + ")", outcome);
                }
            }
        }

        @Override
        public void close() {
            fx.close();
        }
    }

    private static void once(Kind kind, byte[] input) {
        try (Target t = new Target()) {
            t.run(kind, input);
        } catch (FuzzSweep.Rejected expected) {
            // typed: fine
        }
    }

    @FuzzTest(maxDuration = "5m")
    void metadata(byte[] input) {
        once(Kind.METADATA, input);
    }

    @FuzzTest(maxDuration = "5m")
    void root(byte[] input) {
        once(Kind.ROOT, input);
    }

    @FuzzTest(maxDuration = "5m")
    void node(byte[] input) {
        once(Kind.NODE, input);
    }

    @FuzzTest(maxDuration = "5m")
    void leaf(byte[] input) {
        once(Kind.LEAF, input);
    }

    /** Leaves the generated seeds in target/fuzz-seeds for refreshing the Jazzer corpus. */
    private static void writeSeed(Kind k, byte[] bytes) {
        try {
            java.nio.file.Path p = java.nio.file.Path.of("target", "fuzz-seeds", "TreeFuzzTest", k.name().toLowerCase(), "javelin-written");
            java.nio.file.Files.createDirectories(p.getParent());
            java.nio.file.Files.write(p, bytes);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void sweepEveryTreeObjectKind() {
        try (Target t = new Target()) {
            long seed = 21;
            for (Kind k : Kind.values()) {
                // the checked-in corpus (findings included) is replayed by Jazzer; mutants start from the live tree
                List<byte[]> seeds = new ArrayList<>(List.of(t.pristine(k)));
                writeSeed(k, t.pristine(k));
                var r = FuzzSweep.of("tree-" + k.name().toLowerCase(), seeds).run(k == Kind.LEAF ? 600 : 1500, seed++,
                        in -> t.run(k, in));
                assertThat(r.rejected()).as("mutants rejected for %s", k).isPositive();
            }
        }
    }
}
