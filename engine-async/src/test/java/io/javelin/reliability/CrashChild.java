package io.javelin.reliability;

import io.javelin.engine.Dataset;
import io.javelin.engine.WriteMode;
import io.javelin.engine.WriteParams;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;

/**
 * The process {@link CrashConsistencyTest} kills: commits appends of {@code rows} ids (continuing
 * {@code 0..count-1}) to a local dataset forever, and after each acknowledged commit appends
 * "{version} {count}" to the ack log and fsyncs it before going on. Args: dataset dir, ack log, rows.
 */
public final class CrashChild {

    static final Schema SCHEMA = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null)));

    private CrashChild() {
    }

    static Flux<VectorSchemaRoot> ids(BufferAllocator alloc, long from, int n) {
        return Flux.defer(() -> {
            VectorSchemaRoot root = VectorSchemaRoot.create(SCHEMA, alloc);
            BigIntVector id = (BigIntVector) root.getVector("id");
            id.allocateNew(n);
            for (int i = 0; i < n; i++) {
                id.set(i, from + i);
            }
            root.setRowCount(n);
            return Flux.just(root);
        });
    }

    /** One commit: create or append {@code rows} ids after the current count; returns {version, count}. */
    static long[] commitOnce(String uri, Path dir, BufferAllocator alloc, int rows) {
        if (!Files.exists(dir.resolve("_versions"))) {
            try (Dataset ds = Dataset.write(uri, ids(alloc, 0, rows), SCHEMA, WriteParams.of(WriteMode.CREATE)).block()) {
                return new long[] {ds.version(), rows};
            }
        }
        try (Dataset ds = Dataset.open(uri).block()) {
            long count = ds.count().block();
            try (Dataset next = ds.append(ids(alloc, count, rows), SCHEMA).block()) {
                return new long[] {next.version(), count + rows};
            }
        }
    }

    static void ack(FileChannel log, long[] vc) throws IOException {
        log.write(ByteBuffer.wrap((vc[0] + " " + vc[1] + "\n").getBytes(StandardCharsets.US_ASCII)));
        log.force(true);
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Path ackLog = Path.of(args[1]);
        int rows = Integer.parseInt(args[2]);
        String uri = dir.toUri().toString();
        try (BufferAllocator alloc = new RootAllocator();
             FileChannel log = FileChannel.open(ackLog, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                     StandardOpenOption.APPEND)) {
            while (true) {
                ack(log, commitOnce(uri, dir, alloc, rows));
            }
        }
    }
}
