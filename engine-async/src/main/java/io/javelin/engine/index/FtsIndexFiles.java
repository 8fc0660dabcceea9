package io.javelin.engine.index;

import io.javelin.index.fts.FtsParams;
import io.javelin.index.fts.InvertedIndexWriter;
import io.javelin.index.fts.MemoryPartition;
import io.javelin.index.fts.TextAnalyzer;
import io.javelin.index.pb.InvertedIndexDetails;
import io.javelin.objectstore.ObjectStore;
import io.javelin.tx.pb.IndexFile;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Builds and writes the files of an INVERTED segment (one partition, Lance 7.0.0's v1 layout, arrow token set). */
final class FtsIndexFiles {

    private FtsIndexFiles() {
    }

    static Mono<List<IndexFile>> write(ObjectStore store, String dir, FtsParams params, FieldVector values, long[] rows, BufferAllocator alloc) {
        // usingWhen: the batches close before completion propagates (the allocator closes right after)
        return Mono.usingWhen(Mono.fromCallable(() -> {
                    MemoryPartition.Builder b = new MemoryPartition.Builder(new TextAnalyzer(params), params.withPosition());
                    for (int i = 0; i < values.getValueCount(); i++) {
                        b.add(rows[i], FullTextSearch.text(values, i));
                    }
                    return InvertedIndexWriter.encode(b.build(), params, alloc);
                }),
                batches -> Flux.fromIterable(batches.entrySet())
                        .concatMap(e -> IndexCreator.file(store, dir, e.getKey(), e.getValue(), List.of()))
                        .collectList(),
                batches -> Mono.fromRunnable(() -> batches.values().forEach(VectorSchemaRoot::close)));
    }

    /** The manifest details Lance writes for these settings (language as a JSON string, as Lance serialises it). */
    static InvertedIndexDetails details(FtsParams p) {
        InvertedIndexDetails.Builder d = InvertedIndexDetails.newBuilder()
                .setBaseTokenizer(p.baseTokenizer())
                .setLanguage("\"" + p.language() + "\"")
                .setWithPosition(p.withPosition())
                .setLowerCase(p.lowerCase())
                .setStem(p.stem())
                .setRemoveStopWords(p.removeStopWords())
                .setAsciiFolding(p.asciiFolding())
                .setMinNgramLength(p.minNgramLength())
                .setMaxNgramLength(p.maxNgramLength())
                .setPrefixOnly(p.prefixOnly());
        if (p.maxTokenLength() != null) {
            d.setMaxTokenLength(p.maxTokenLength());
        }
        return d.build();
    }
}
