package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.RowFilter;
import io.javelin.index.pb.IVF;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

class IvfIndexTest {

    static final int DIM = 128;
    static SyntheticVectors data;
    static IvfIndex pq;
    static BufferAllocator allocator;

    @BeforeAll
    static void build() {
        data = new SyntheticVectors(8_000, DIM, 32, 7);
        long t0 = System.nanoTime();
        pq = IvfIndex.build(data.data, data.rows, data.n, DIM, IvfIndex.BuildParams.ivfPq(16, 16, DistanceType.L2).withMaxIters(8).withSampleRate(24));
        System.out.printf("IVF16,PQ16x8 build over %d x %d: %d ms%n", data.n, DIM, (System.nanoTime() - t0) / 1_000_000);
        allocator = new RootAllocator();
    }

    @AfterAll
    static void close() {
        allocator.close();
    }

    static Neighbor[] exact(float[] q, int k, DistanceType t, RowFilter f) {
        return IvfIndex.flatSearch(data.data, data.rows, DIM, q, k, t, f);
    }

    @Test
    void topKKeepsTheSmallestAndBreaksTiesByRowId() {
        TopK top = new TopK(3);
        top.offer(9, 1f);
        top.offer(5, 1f);
        top.offer(7, 0.5f);
        top.offer(1, 1f);
        top.offer(3, 2f);
        assertThat(top.sorted()).containsExactly(new Neighbor(7, 0.5f), new Neighbor(1, 1f), new Neighbor(5, 1f));
    }

    @Test
    void flatSearchMatchesSortingEveryDistance() {
        Random rnd = new Random(1);
        for (DistanceType t : new DistanceType[] {DistanceType.L2, DistanceType.COSINE, DistanceType.DOT}) {
            float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
            Neighbor[] all = new Neighbor[data.n];
            for (int i = 0; i < data.n; i++) {
                all[i] = new Neighbor(data.rows[i], t.f32(q, 0, data.data, i * DIM, DIM));
            }
            Arrays.sort(all);
            // float reductions in the vector kernel may round differently once C2 compiles them: compare ids, and distances loosely
            Neighbor[] got = exact(q, 10, t, RowFilter.ALL);
            assertThat(Arrays.stream(got).mapToLong(Neighbor::rowId).toArray())
                    .containsExactly(Arrays.stream(all, 0, 10).mapToLong(Neighbor::rowId).toArray());
            for (int i = 0; i < 10; i++) {
                assertThat(got[i].distance()).isCloseTo(all[i].distance(), org.assertj.core.api.Assertions.within(1e-3f * Math.max(1, Math.abs(all[i].distance()))));
            }
        }
    }

    @Test
    void ivfPqRecallAtTen() {
        Random rnd = new Random(2);
        int queries = 50;
        double[] byNprobes = new double[5];
        double refined = 0;
        int[] probes = {1, 2, 4, 8, 16};
        long t0 = System.nanoTime();
        for (int i = 0; i < queries; i++) {
            float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
            Neighbor[] truth = exact(q, 10, DistanceType.L2, RowFilter.ALL);
            for (int p = 0; p < probes.length; p++) {
                byNprobes[p] += SyntheticVectors.recall(truth, pq.search(VectorQuery.of(q, 10).withNprobes(probes[p]), null));
            }
            Neighbor[] r = pq.search(VectorQuery.of(q, 10).withNprobes(4).withRefineFactor(10), data::vectorsOf);
            refined += SyntheticVectors.recall(truth, r);
            assertThat(r[0].distance()).isEqualTo(truth[0].distance()); // refine reports exact distances
        }
        long perQuery = (System.nanoTime() - t0) / (queries * 6L) / 1000;
        for (int p = 0; p < probes.length; p++) {
            System.out.printf("IVF16,PQ16 recall@10 nprobes=%d: %.3f%n", probes[p], byNprobes[p] / queries);
        }
        System.out.printf("IVF16,PQ16 recall@10 nprobes=4 refine=10: %.3f (avg %d us/query)%n", refined / queries, perQuery);
        assertThat(byNprobes[4] / queries).isGreaterThan(0.3);
        assertThat(refined / queries).isGreaterThan(0.95);
    }

    @Test
    void ivfFlatWithAllPartitionsIsExactAndSqIsClose() {
        IvfIndex flat = IvfIndex.build(data.data, data.rows, data.n, DIM, IvfIndex.BuildParams.ivfFlat(8, DistanceType.L2).withMaxIters(8).withSampleRate(24));
        IvfIndex sq = IvfIndex.build(data.data, data.rows, data.n, DIM, IvfIndex.BuildParams.ivfSq(8, DistanceType.L2).withMaxIters(8).withSampleRate(24));
        Random rnd = new Random(3);
        double sqRecall = 0;
        for (int i = 0; i < 20; i++) {
            float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
            Neighbor[] truth = exact(q, 10, DistanceType.L2, RowFilter.ALL);
            assertThat(flat.search(VectorQuery.of(q, 10).withNprobes(8), null)).containsExactly(truth);
            sqRecall += SyntheticVectors.recall(truth, sq.search(VectorQuery.of(q, 10).withNprobes(8), null));
        }
        System.out.printf("IVF8,SQ8 recall@10 nprobes=8: %.3f%n", sqRecall / 20);
        assertThat(sqRecall / 20).isGreaterThan(0.8);
    }

    @Test
    void cosineAndDotIndexesAgreeWithExactSearchWhenRefined() {
        Random rnd = new Random(4);
        for (DistanceType t : new DistanceType[] {DistanceType.COSINE, DistanceType.DOT}) {
            IvfIndex idx = IvfIndex.build(data.data, data.rows, data.n, DIM,
                    IvfIndex.BuildParams.ivfPq(8, 16, t).withMaxIters(6).withSampleRate(24));
            double recall = 0;
            for (int i = 0; i < 10; i++) {
                float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
                Neighbor[] truth = exact(q, 10, t, RowFilter.ALL);
                Neighbor[] got = idx.search(VectorQuery.of(q, 10).withNprobes(8).withRefineFactor(20), data::vectorsOf);
                recall += SyntheticVectors.recall(truth, got);
            }
            System.out.printf("IVF8,PQ16 %s recall@10 nprobes=8 refine=20: %.3f%n", t, recall / 10);
            assertThat(recall / 10).as(t.name()).isGreaterThan(0.8);
        }
    }

    @Test
    void prefilterAndDeletionsAreHonouredAndProbingExpandsUntilKFound() {
        Random rnd = new Random(5);
        float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
        RowFilter multipleOf97 = row -> (row & 0xFFFFFFFFL) % 97 == 0;
        RowFilter deleted = row -> (row & 0xFFFFFFFFL) % 2 == 0;
        VectorQuery vq = VectorQuery.of(q, 10).withNprobes(1, 0).withPrefilter(multipleOf97).withDeleted(deleted);
        Neighbor[] got = pq.search(vq, data::vectorsOf);
        assertThat(got).hasSize(10);
        for (Neighbor nb : got) {
            assertThat(multipleOf97.allows(nb.rowId()) && !deleted.allows(nb.rowId())).isTrue();
        }
        // with refine the ranking matches the exact filtered ranking among everything the index returned
        Neighbor[] refined = pq.search(vq.withNprobes(16).withRefineFactor(50), data::vectorsOf);
        assertThat(refined).containsExactly(exact(q, 10, DistanceType.L2, multipleOf97.without(deleted)));
        // a single probe with max=min stops even when fewer than k rows pass
        assertThat(pq.search(vq.withNprobes(1), null).length).isLessThanOrEqualTo(10);
        // postfilter can only shrink
        Neighbor[] post = pq.search(VectorQuery.of(q, 10).withNprobes(16).withPostfilter(multipleOf97), null);
        assertThat(post.length).isLessThan(10);
    }

    @Test
    void roundTripsThroughLanceLayout() {
        Map<String, String> indexMeta = pq.indexFileMetadata();
        assertThat(indexMeta).containsEntry("lance:index", "{\"type\":\"IVF_PQ\",\"distance_type\":\"l2\"}")
                .containsEntry("lance:ivf", "1");
        assertThat(indexMeta.get("lance:flat")).isEqualTo("[" + String.join(",", java.util.Collections.nCopies(16, "\"\"")) + "]");
        Map<String, String> auxMeta = pq.auxiliaryFileMetadata();
        assertThat(auxMeta.get("storage_metadata")).isEqualTo(
                "[\"{\\\"codebook_position\\\":2,\\\"nbits\\\":8,\\\"num_sub_vectors\\\":16,\\\"dimension\\\":128,\\\"codebook_tensor\\\":[],\\\"transposed\\\":true}\"]");
        IVF auxIvf = pq.auxiliaryFileIvf();
        assertThat(pq.codebookTensor().getShapeList()).containsExactly(256, 128);
        assertThat(pq.indexFileIvf().getCentroidsTensor().getShapeList()).containsExactly(16, 128);
        assertThat(pq.indexFileIvf().getOffsetsList()).allMatch(o -> o == 0);
        try (VectorSchemaRoot aux = pq.auxiliaryBatch(allocator);
             VectorSchemaRoot marker = IvfIndex.indexFileBatch(allocator, indexMeta)) {
            assertThat(aux.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("_rowid", "__pq_code");
            assertThat(aux.getSchema().getFields().get(1).getType().toString()).isEqualTo("FixedSizeList(16)");
            assertThat(marker.getRowCount()).isZero();
            // transposed: the first partition's bytes are [m][n]
            int n0 = pq.partitionSize(0);
            FixedSizeListVector codes = (FixedSizeListVector) aux.getVector("__pq_code");
            assertThat(codes.getValueCount()).isEqualTo(data.n);
            IvfIndex loaded = IvfIndex.load(indexMeta, pq.indexFileIvf(), auxMeta, auxIvf, pq.codebookTensor(), aux, "test");
            Random rnd = new Random(6);
            for (int i = 0; i < 10; i++) {
                float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
                VectorQuery vq = VectorQuery.of(q, 10).withNprobes(3);
                assertThat(loaded.search(vq, null)).containsExactly(pq.search(vq, null));
            }
            assertThat(n0).isPositive();

            // corrupt inputs → typed exception, never wrong rows
            IVF badOffsets = auxIvf.toBuilder().setOffsets(1, 7).build();
            assertThatThrownBy(() -> IvfIndex.load(indexMeta, pq.indexFileIvf(), auxMeta, badOffsets, pq.codebookTensor(), aux, "t"))
                    .isInstanceOf(CorruptIndexException.class).hasMessageContaining("partition 1 offset 7");
            assertThatThrownBy(() -> IvfIndex.load(indexMeta, pq.indexFileIvf(), auxMeta, auxIvf, null, aux, "t"))
                    .isInstanceOf(CorruptIndexException.class).hasMessageContaining("codebook");
            assertThatThrownBy(() -> IvfIndex.load(Map.of("lance:index", "{not json"), pq.indexFileIvf(), auxMeta, auxIvf,
                    pq.codebookTensor(), aux, "t")).isInstanceOf(CorruptIndexException.class);
            assertThatThrownBy(() -> IvfIndex.load(indexMeta, pq.indexFileIvf(), Map.of("storage_metadata", "[\"{\\\"nbits\\\":8,\\\"num_sub_vectors\\\":5}\"]"),
                    auxIvf, pq.codebookTensor(), aux, "t")).isInstanceOf(CorruptIndexException.class);
            IVF truncatedTensor = pq.indexFileIvf().toBuilder()
                    .setCentroidsTensor(pq.indexFileIvf().getCentroidsTensor().toBuilder()
                            .setData(pq.indexFileIvf().getCentroidsTensor().getData().substring(0, 100))).build();
            assertThatThrownBy(() -> IvfIndex.load(indexMeta, truncatedTensor, auxMeta, auxIvf, pq.codebookTensor(), aux, "t"))
                    .isInstanceOf(CorruptIndexException.class).hasMessageContaining("needs");
            assertThat(aux.getVector("_rowid")).isInstanceOf(UInt8Vector.class);
        }
    }

    @Test
    void fourBitPqSearchesToo() {
        IvfIndex four = IvfIndex.build(data.data, data.rows, data.n, DIM,
                IvfIndex.BuildParams.ivfPq(8, 32, DistanceType.L2).withNumBits(4).withMaxIters(8).withSampleRate(24));
        Random rnd = new Random(8);
        double recall = 0;
        for (int i = 0; i < 10; i++) {
            float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
            recall += SyntheticVectors.recall(exact(q, 10, DistanceType.L2, RowFilter.ALL),
                    four.search(VectorQuery.of(q, 10).withNprobes(8).withRefineFactor(10), data::vectorsOf));
        }
        System.out.printf("IVF8,PQ32x4 recall@10 nprobes=8 refine=10: %.3f%n", recall / 10);
        assertThat(recall / 10).isGreaterThan(0.8);
    }

    /** The 100k-vector recall run: {@code -Djavelin.index.bigRecall=true}. */
    @Test
    @EnabledIfSystemProperty(named = "javelin.index.bigRecall", matches = "true")
    void bigRecall() {
        SyntheticVectors big = new SyntheticVectors(100_000, DIM, 256, 11);
        long t0 = System.nanoTime();
        IvfIndex idx = IvfIndex.build(big.data, big.rows, big.n, DIM, IvfIndex.BuildParams.ivfPq(64, 16, DistanceType.L2).withMaxIters(10).withSampleRate(64));
        System.out.printf("BIG IVF64,PQ16 build over %d: %d ms%n", big.n, (System.nanoTime() - t0) / 1_000_000);
        Random rnd = new Random(12);
        int[] probes = {1, 4, 8, 16, 32};
        for (int p : probes) {
            double r = 0, rr = 0;
            long t = System.nanoTime();
            for (int i = 0; i < 50; i++) {
                float[] q = big.queryNear(rnd.nextInt(big.n), rnd, 0.3);
                Neighbor[] truth = IvfIndex.flatSearch(big.data, big.rows, DIM, q, 10, DistanceType.L2, RowFilter.ALL);
                r += SyntheticVectors.recall(truth, idx.search(VectorQuery.of(q, 10).withNprobes(p), null));
                rr += SyntheticVectors.recall(truth, idx.search(VectorQuery.of(q, 10).withNprobes(p).withRefineFactor(10), big::vectorsOf));
            }
            System.out.printf("BIG recall@10 nprobes=%d: %.3f, refine=10: %.3f (%d us per query pair incl. ground truth)%n",
                    p, r / 50, rr / 50, (System.nanoTime() - t) / 50_000);
        }
    }
}
