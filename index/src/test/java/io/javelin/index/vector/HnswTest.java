package io.javelin.index.vector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.index.CorruptIndexException;
import io.javelin.index.RowFilter;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;

class HnswTest {

    @Test
    void recallRoundTripAndPrefilter() {
        int dim = 64;
        SyntheticVectors data = new SyntheticVectors(3000, dim, 16, 21);
        Hnsw.Params params = Hnsw.Params.LANCE_DEFAULT.withEfConstruction(60);
        long t0 = System.nanoTime();
        Hnsw.Scorer scorer = Hnsw.flatScorer(data.data, dim, DistanceType.L2);
        Hnsw g = Hnsw.build(scorer, params);
        long buildMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(g.levels()).isGreaterThanOrEqualTo(2);
        for (int node = 0; node < g.size(); node++) {
            assertThat(g.neighbors(0, node).length).isBetween(1, 40);
        }
        Random rnd = new Random(3);
        double recall = 0;
        double filtered = 0;
        RowFilter odd = row -> (row & 1) == 1;
        RowFilter rare = row -> (row & 0xFFFFFFFFL) % 50 == 0;
        for (int i = 0; i < 30; i++) {
            float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
            Neighbor[] truth = IvfIndex.flatSearch(data.data, data.rows, dim, q, 10, DistanceType.L2, RowFilter.ALL);
            recall += SyntheticVectors.recall(truth, g.search(scorer.query(q), data.rows, 10, 64, RowFilter.ALL));
            Neighbor[] ft = IvfIndex.flatSearch(data.data, data.rows, dim, q, 10, DistanceType.L2, odd);
            Neighbor[] fg = g.search(scorer.query(q), data.rows, 10, 64, odd);
            filtered += SyntheticVectors.recall(ft, fg);
            assertThat(fg).allMatch(nb -> odd.allows(nb.rowId()));
            // < 10% allowed: brute force over the allowed rows, exact
            assertThat(g.search(scorer.query(q), data.rows, 10, 64, rare))
                    .containsExactly(IvfIndex.flatSearch(data.data, data.rows, dim, q, 10, DistanceType.L2, rare));
        }
        System.out.printf("HNSW(m=20, ef_c=60) over 3000x64: build %d ms, recall@10 ef=64: %.3f, 50%% prefilter: %.3f%n",
                buildMs, recall / 30, filtered / 30);
        assertThat(recall / 30).isGreaterThan(0.9);
        assertThat(filtered / 30).isGreaterThan(0.85);

        try (BufferAllocator allocator = new RootAllocator(); VectorSchemaRoot rows = g.toBatch(allocator)) {
            long[] offsets = g.levelOffsets();
            assertThat(offsets[0]).isZero();
            assertThat(offsets[1]).isEqualTo(3000); // level 0 holds every node
            assertThat(rows.getRowCount()).isEqualTo((int) offsets[offsets.length - 1]);
            String meta = g.metadataJson();
            assertThat(meta).startsWith("{\"entry_point\":" + g.entryPoint() + ",\"params\":{\"max_level\":7,\"m\":20,\"ef_construction\":60");
            Hnsw loaded = Hnsw.fromBatch(rows, 0, meta, 3000, "test");
            float[] q = data.queryNear(5, rnd, 0.3);
            assertThat(loaded.search(scorer.query(q), data.rows, 10, 64, RowFilter.ALL))
                    .containsExactly(g.search(scorer.query(q), data.rows, 10, 64, RowFilter.ALL));
            assertThatThrownBy(() -> Hnsw.fromBatch(rows, 0, meta, 100, "t")).isInstanceOf(CorruptIndexException.class);
            assertThatThrownBy(() -> Hnsw.fromBatch(rows, 0, "{\"entry_point\":0}", 3000, "t")).isInstanceOf(CorruptIndexException.class);
            assertThatThrownBy(() -> Hnsw.fromBatch(rows, 0, meta.replace("\"level_offsets\":[0,", "\"level_offsets\":[0,999999,"), 3000, "t"))
                    .isInstanceOf(CorruptIndexException.class);
        }
    }

    @Test
    void ivfHnswSqRoundTripsThroughLanceLayout() {
        int dim = 48;
        SyntheticVectors data = new SyntheticVectors(4000, dim, 8, 33);
        long t0 = System.nanoTime();
        IvfIndex idx = IvfIndex.build(data.data, data.rows, data.n, dim, IvfIndex.BuildParams.ivfSq(4, DistanceType.L2)
                .withMaxIters(5).withSampleRate(16).withHnsw(Hnsw.Params.LANCE_DEFAULT.withEfConstruction(40)));
        long buildMs = (System.nanoTime() - t0) / 1_000_000;
        assertThat(idx.lanceType()).isEqualTo("IVF_HNSW_SQ");
        Random rnd = new Random(4);
        double recall = 0;
        for (int i = 0; i < 20; i++) {
            float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
            Neighbor[] truth = IvfIndex.flatSearch(data.data, data.rows, dim, q, 10, DistanceType.L2, RowFilter.ALL);
            recall += SyntheticVectors.recall(truth, idx.search(VectorQuery.of(q, 10).withNprobes(4).withEf(64), null));
        }
        System.out.printf("IVF4_HNSW_SQ over 4000x48: build %d ms, recall@10 nprobes=4 ef=64: %.3f%n", buildMs, recall / 20);
        assertThat(recall / 20).isGreaterThan(0.8);
        try (BufferAllocator allocator = new RootAllocator();
             VectorSchemaRoot index = idx.indexFileBatch(allocator);
             VectorSchemaRoot aux = idx.auxiliaryBatch(allocator)) {
            assertThat(index.getSchema().getCustomMetadata().get("lance:index")).isEqualTo("{\"type\":\"IVF_HNSW_SQ\",\"distance_type\":\"l2\"}");
            assertThat(index.getSchema().getCustomMetadata().get("lance:hnsw")).startsWith("[\"{\\\"entry_point\\\":");
            assertThat(index.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("__vector_id", "__neighbors", "_distance");
            assertThat(aux.getSchema().getFields()).extracting(f -> f.getName()).containsExactly("_rowid", "__sq_code");
            assertThat(idx.indexFileIvf().getLengthsList().stream().mapToLong(Integer::longValue).sum()).isEqualTo(index.getRowCount());
            IvfIndex loaded = IvfIndex.load(idx.indexFileMetadata(), idx.indexFileIvf(), index, idx.auxiliaryFileMetadata(),
                    idx.auxiliaryFileIvf(), null, aux, "t");
            for (int i = 0; i < 5; i++) {
                float[] q = data.queryNear(rnd.nextInt(data.n), rnd, 0.3);
                VectorQuery vq = VectorQuery.of(q, 10).withNprobes(2).withEf(32);
                assertThat(loaded.search(vq, null)).containsExactly(idx.search(vq, null));
            }
            assertThatThrownBy(() -> IvfIndex.load(idx.indexFileMetadata(), idx.indexFileIvf(), null, idx.auxiliaryFileMetadata(),
                    idx.auxiliaryFileIvf(), null, aux, "t")).isInstanceOf(CorruptIndexException.class);
        }
    }
}
