package io.javelin.index.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.index.CorruptIndexException;
import io.javelin.index.pb.IVF;
import io.javelin.index.pb.Tensor;
import io.javelin.index.rowid.RowAddrTreeMap;
import io.javelin.testing.FuzzSweep;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the index decoders of untrusted bytes that are not Lance files themselves (those go
 * through the file reader, fuzzed in {@code encoding}): row-address sets in Lance's RowAddrTreeMap
 * and roaring-rs RoaringTreemap layouts (bitmap-index posting lists, fragment bitmaps, prefilter
 * masks) and the IVF / codebook protobufs of vector index global buffers. Contract: decode or
 * {@link CorruptIndexException}; bounded time and allocation.
 * Coverage-guided: {@code JAZZER_FUZZ=1 ./mvnw -o -pl index -am test -Dtest=IndexDecoderFuzzTest#rowAddrTreeMap -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class IndexDecoderFuzzTest {

    static void decodeRowAddrTreeMap(byte[] bytes) {
        try {
            RowAddrTreeMap m = RowAddrTreeMap.deserialize(bytes, "fuzz");
            assertThat(m).isNotNull();
        } catch (CorruptIndexException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    static void decodeTreemap(byte[] bytes) {
        try {
            RowAddrTreeMap m = RowAddrTreeMap.deserializeTreemap(bytes, "fuzz");
            assertThat(m).isNotNull();
        } catch (CorruptIndexException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    /** The global buffers a vector index opens with (IndexReaders.parseIvf / codebook). */
    static void decodeIvfBuffers(byte[] bytes) {
        try {
            IVF ivf = IVF.parseFrom(bytes);
            assertThat(ivf).isNotNull();
            Tensor.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new FuzzSweep.Rejected(e);
        }
    }

    @FuzzTest(maxDuration = "5m")
    void rowAddrTreeMap(byte[] bytes) {
        quiet(() -> decodeRowAddrTreeMap(bytes));
    }

    @FuzzTest(maxDuration = "5m")
    void roaringTreemap(byte[] bytes) {
        quiet(() -> decodeTreemap(bytes));
    }

    private static void quiet(Runnable r) {
        try {
            r.run();
        } catch (FuzzSweep.Rejected expected) {
            // typed
        }
    }

    static List<RowAddrTreeMap> samples() {
        RowAddrTreeMap a = RowAddrTreeMap.of(0, 1, 2, RowAddrTreeMap.address(3, 7), RowAddrTreeMap.address(3, 70_000));
        RowAddrTreeMap b = new RowAddrTreeMap();
        b.addRange(RowAddrTreeMap.address(1, 0), RowAddrTreeMap.address(1, 5000));
        b.add(RowAddrTreeMap.address(9, 65_536));
        RowAddrTreeMap c = new RowAddrTreeMap();
        c.addFullFragment(4);
        c.add(RowAddrTreeMap.address(5, 1));
        return List.of(a, b, c);
    }

    /** Leaves the generated seeds in target/fuzz-seeds for refreshing the Jazzer corpus. */
    private static void writeSeeds(String method, List<byte[]> seeds) {
        try {
            java.nio.file.Path dir = java.nio.file.Path.of("target", "fuzz-seeds", "IndexDecoderFuzzTest", method);
            java.nio.file.Files.createDirectories(dir);
            for (int i = 0; i < seeds.size(); i++) {
                java.nio.file.Files.write(dir.resolve("javelin-written-" + i), seeds.get(i));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void sweepRowAddrTreeMaps() {
        // the checked-in corpus is replayed by Jazzer; mutants start from freshly serialized samples
        List<byte[]> seeds = new ArrayList<>();
        samples().forEach(m -> seeds.add(m.serialize()));
        writeSeeds("rowAddrTreeMap", samples().stream().map(RowAddrTreeMap::serialize).toList());
        var r = FuzzSweep.of("row-addr-tree-map", seeds).run(3000, 31, IndexDecoderFuzzTest::decodeRowAddrTreeMap);
        assertThat(r.rejected()).isPositive();
        FuzzSweep.of("row-addr-tree-map", seeds).truncations(300, IndexDecoderFuzzTest::decodeRowAddrTreeMap);
    }

    @Test
    void sweepRoaringTreemaps() {
        List<byte[]> seeds = new ArrayList<>();
        for (RowAddrTreeMap m : samples().subList(0, 2)) {
            seeds.add(m.serializeTreemap());
        }
        writeSeeds("roaringTreemap", seeds.subList(seeds.size() - 2, seeds.size()));
        var r = FuzzSweep.of("roaring-treemap", seeds).run(3000, 32, IndexDecoderFuzzTest::decodeTreemap);
        assertThat(r.rejected()).isPositive();
    }

    @Test
    void sweepIvfBuffers() throws Exception {
        List<byte[]> seeds = new ArrayList<>();
        for (String f : List.of("index.idx.buffer1.ivf.binpb", "auxiliary.idx.buffer1.ivf.binpb",
                "auxiliary.idx.buffer2.codebook.binpb")) {
            seeds.add(FuzzSweep.resource(IndexDecoderFuzzTest.class, "/golden/indexed-ivfpq/" + f));
        }
        FuzzSweep.of("ivf-buffers", seeds).run(1000, 33, IndexDecoderFuzzTest::decodeIvfBuffers);
    }
}
