package io.javelin.jmh.sidebyside;

import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import reactor.core.publisher.Flux;

/** Javelin's reactive {@link Dataset}, driven to completion with {@code block()} on the runner's thread. */
final class JavelinEngine implements Engine {

    private final BufferAllocator alloc;
    private final Map<String, String> storageOptions;
    private Dataset ds;

    JavelinEngine(BufferAllocator alloc) {
        this(alloc, Map.of());
    }

    /** {@code storageOptions}: Lance's option names, as for {@code Dataset.open(uri, options)}. */
    JavelinEngine(BufferAllocator alloc, Map<String, String> storageOptions) {
        this.alloc = alloc;
        this.storageOptions = Map.copyOf(storageOptions);
    }

    @Override
    public String name() {
        return "javelin";
    }

    @Override
    public void write(String uri, BenchData data) {
        Flux<VectorSchemaRoot> batches = Flux.range(0, data.batches()).map(data::batch);
        Dataset.write(uri, storageOptions, batches, BenchData.SCHEMA,
                WriteParams.of(WriteMode.CREATE).withDataStorageVersion(LanceFileVersion.V2_1)).block().close();
    }

    @Override
    public void open(String uri) {
        close();
        ds = Dataset.open(uri, storageOptions).block();
    }

    @Override
    public Result scan(List<String> columns, String filter, int batchSize) {
        var sc = ds.scanner().batchSize(batchSize);
        if (columns != null) {
            sc = sc.columns(columns);
        }
        if (filter != null) {
            sc = sc.filter(filter);
        }
        long[] acc = new long[2];
        sc.scan(alloc).doOnNext(root -> {
            try (root) {
                acc[0] += root.getRowCount();
                acc[1] += bytes(root);
            }
        }).blockLast();
        return new Result(acc[0], acc[1]);
    }

    @Override
    public Result take(long[] indices, List<String> columns) {
        try (VectorSchemaRoot root = ds.take(indices, columns, alloc).block()) {
            return new Result(root.getRowCount(), bytes(root));
        }
    }

    @Override
    public void append(String uri, BenchData data) {
        Flux<VectorSchemaRoot> batches = Flux.range(0, data.batches()).map(data::batch);
        Dataset.write(uri, storageOptions, batches, BenchData.SCHEMA,
                WriteParams.of(WriteMode.APPEND).withDataStorageVersion(LanceFileVersion.V2_1)).block().close();
    }

    static long bytes(VectorSchemaRoot root) {
        long b = 0;
        for (FieldVector v : root.getFieldVectors()) {
            b += v.getBufferSize();
        }
        return b;
    }

    @Override
    public void close() {
        if (ds != null) {
            ds.close();
            ds = null;
        }
    }
}
