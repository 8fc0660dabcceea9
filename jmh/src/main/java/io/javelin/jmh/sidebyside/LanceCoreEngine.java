package io.javelin.jmh.sidebyside;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/** The official Lance Java SDK (lance-core 7.0.0, JNI over Rust). */
final class LanceCoreEngine implements Engine {

    private final BufferAllocator alloc;
    private final Map<String, String> storageOptions;
    private Dataset ds;

    LanceCoreEngine(BufferAllocator alloc) {
        this(alloc, Map.of());
    }

    /** {@code storageOptions}: Lance's storage options (aws_endpoint, allow_http, ...). */
    LanceCoreEngine(BufferAllocator alloc, Map<String, String> storageOptions) {
        this.alloc = alloc;
        this.storageOptions = Map.copyOf(storageOptions);
    }

    @Override
    public String name() {
        return "lance-core";
    }

    @Override
    public void write(String uri, BenchData data) throws Exception {
        try (ArrowReader reader = new Generated(alloc, data); ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            WriteParams p = new WriteParams.Builder().withMode(WriteParams.WriteMode.CREATE).withDataStorageVersion("2.1")
                    .withStorageOptions(storageOptions).build();
            Dataset.create(alloc, stream, uri, p).close();
        }
    }

    @Override
    public void open(String uri) {
        close();
        ds = Dataset.open(alloc, uri, new ReadOptions.Builder().setStorageOptions(storageOptions).build());
    }

    @Override
    public Result scan(List<String> columns, String filter, int batchSize) throws Exception {
        ScanOptions.Builder b = new ScanOptions.Builder().batchSize(batchSize);
        if (columns != null) {
            b.columns(columns);
        }
        if (filter != null) {
            b.filter(filter);
        }
        long rows = 0;
        long bytes = 0;
        try (LanceScanner s = ds.newScan(b.build()); ArrowReader r = s.scanBatches()) {
            while (r.loadNextBatch()) {
                rows += r.getVectorSchemaRoot().getRowCount();
                bytes += JavelinEngine.bytes(r.getVectorSchemaRoot());
            }
        }
        return new Result(rows, bytes);
    }

    @Override
    public void append(String uri, BenchData data) throws Exception {
        try (ArrowReader reader = new Generated(alloc, data); ArrowArrayStream stream = ArrowArrayStream.allocateNew(alloc)) {
            Data.exportArrayStream(alloc, reader, stream);
            WriteParams p = new WriteParams.Builder().withMode(WriteParams.WriteMode.APPEND).withDataStorageVersion("2.1")
                    .withStorageOptions(storageOptions).build();
            Dataset.create(alloc, stream, uri, p).close();
        }
    }

    @Override
    public Result take(long[] indices, List<String> columns) throws Exception {
        List<Long> idx = new ArrayList<>(indices.length);
        for (long i : indices) {
            idx.add(i);
        }
        long rows = 0;
        long bytes = 0;
        try (ArrowReader r = ds.take(idx, columns)) {
            while (r.loadNextBatch()) {
                rows += r.getVectorSchemaRoot().getRowCount();
                bytes += JavelinEngine.bytes(r.getVectorSchemaRoot());
            }
        }
        return new Result(rows, bytes);
    }

    @Override
    public void close() {
        if (ds != null) {
            ds.close();
            ds = null;
        }
    }

    /** Streams the generated batches to lance-core through the Arrow C stream interface. */
    static final class Generated extends ArrowReader {
        private final BenchData data;
        private int next;

        Generated(BufferAllocator alloc, BenchData data) {
            super(alloc);
            this.data = data;
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            if (next >= data.batches()) {
                return false;
            }
            prepareLoadNextBatch();
            data.load(next++, getVectorSchemaRoot());
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
        }

        @Override
        protected Schema readSchema() {
            return BenchData.SCHEMA;
        }
    }
}
