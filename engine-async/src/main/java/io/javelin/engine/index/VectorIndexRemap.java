package io.javelin.engine.index;

import io.javelin.engine.Dataset;
import io.javelin.index.IndexFiles;
import io.javelin.index.IndexReaders;
import io.javelin.index.LanceIndexFileSource;
import io.javelin.tx.pb.IndexFile;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Compaction's remap of one vector segment (IVF_FLAT / IVF_PQ / IVF_SQ / IVF_HNSW_FLAT / IVF_HNSW_SQ), as
 * Lance's {@code remap_index_file_v3}: every partition's {@code _rowid}s go through the old→new address
 * mapping (rows of deleted addresses dropped, rows outside the rewritten fragments kept), centroids and
 * quantizer are reused, HNSW graphs are rebuilt over the remapped partition storage, and the result is
 * written as a new segment with the same file layout. The partitions are not re-balanced (Lance 7.0.0
 * keeps the partition count on remap as well).
 */
final class VectorIndexRemap {

    private VectorIndexRemap() {
    }

    /** Reads segment {@code idx} whole, remaps it on {@code boundedElastic} (HNSW rebuilds are CPU work) and writes it to {@code uuid}. */
    static Mono<List<IndexFile>> remap(Dataset ds, IndexInfo idx, Map<Integer, long[]> map, UUID uuid, BufferAllocator alloc) {
        return Mono.using(() -> LanceIndexFileSource.forSegment(ds.objectStore(), "", idx.uuid(), alloc),
                src -> IndexReaders.openIvf(src, IndexFiles.directory(idx.uuid()))
                        .publishOn(Schedulers.boundedElastic())
                        .map(old -> old.remap(addr -> IndexRemap.map(map, addr)))
                        .flatMap(remapped -> IndexCreator.vectorFiles(ds.objectStore(), IndexFiles.directory(uuid), remapped, alloc)),
                LanceIndexFileSource::close);
    }
}
