package io.javelin.engine.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;
import org.apache.arrow.vector.ipc.ArrowWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;

/** The incremental IPC decoder and the encoders: any chunking gives the same batches; bad bodies are typed errors. */
class IpcStreamDecoderTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("s", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)));

    final BufferAllocator alloc = new RootAllocator();

    @AfterEach
    void close() {
        assertThat(alloc.getAllocatedMemory()).as("leaked Arrow memory").isZero();
        alloc.close();
    }

    VectorSchemaRoot batch(long from, int n) {
        VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
        r.allocateNew();
        for (int i = 0; i < n; i++) {
            ((BigIntVector) r.getVector("id")).setSafe(i, from + i);
            ((VarCharVector) r.getVector("s")).setSafe(i, ("v" + (from + i)).getBytes());
        }
        r.setRowCount(n);
        return r;
    }

    byte[] body(boolean file, int batches) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (VectorSchemaRoot r = VectorSchemaRoot.create(SCHEMA, alloc);
             ArrowWriter w = file ? new ArrowFileWriter(r, null, Channels.newChannel(out)) : new ArrowStreamWriter(r, null, Channels.newChannel(out))) {
            w.start();
            for (int b = 0; b < batches; b++) {
                try (VectorSchemaRoot src = batch(b * 100L, 100);
                     var rb = new org.apache.arrow.vector.VectorUnloader(src).getRecordBatch()) {
                    new org.apache.arrow.vector.VectorLoader(r).load(rb);
                }
                w.writeBatch();
            }
            w.end();
        }
        return out.toByteArray();
    }

    static Flux<byte[]> chunks(byte[] b, int size) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < b.length; i += size) {
            out.add(Arrays.copyOfRange(b, i, Math.min(b.length, i + size)));
        }
        return Flux.fromIterable(out);
    }

    List<Long> decodeIds(Flux<byte[]> in) {
        List<Object> items = IpcStreamDecoder.decode(in, alloc, 1 << 20).collectList().block();
        assertThat(items.getFirst()).isEqualTo(SCHEMA);
        List<Long> ids = new ArrayList<>();
        for (Object o : items.subList(1, items.size())) {
            try (VectorSchemaRoot r = (VectorSchemaRoot) o) {
                for (int i = 0; i < r.getRowCount(); i++) {
                    ids.add(((BigIntVector) r.getVector("id")).get(i));
                    assertThat(r.getVector("s").getObject(i).toString()).isEqualTo("v" + ids.getLast());
                }
            }
        }
        return ids;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 7, 64, 1000, 1 << 20})
    void anyChunkingDecodesTheSameBatches(int chunk) throws Exception {
        for (boolean file : new boolean[] {false, true}) {
            List<Long> ids = decodeIds(chunks(body(file, 3), chunk));
            assertThat(ids).hasSize(300);
            assertThat(ids.getFirst()).isZero();
            assertThat(ids.getLast()).isEqualTo(299L);
        }
    }

    @Test
    void badBodiesAreInvalidInput() throws Exception {
        byte[] ok = body(false, 2);
        for (byte[] bad : List.of(new byte[0], Arrays.copyOf(ok, ok.length - 20), Arrays.copyOf(ok, 10), "garbage garbage garbage".getBytes())) {
            assertThatThrownBy(() -> IpcStreamDecoder.decode(chunks(bad, 5), alloc, 1 << 20).doOnNext(o -> {
                if (o instanceof VectorSchemaRoot r) {
                    r.close();
                }
            }).blockLast()).isInstanceOfSatisfying(NamespaceException.class,
                    e -> assertThat(e.code()).isEqualTo(NamespaceErrorCode.INVALID_INPUT));
        }
        assertThatThrownBy(() -> IpcStreamDecoder.decode(chunks(ok, 100), alloc, 512).blockLast())
                .isInstanceOfSatisfying(NamespaceException.class, e -> assertThat(e.getMessage()).contains("exceeds the limit"));
    }

    @Test
    void encodersRoundTripThroughTheDecoder() {
        for (boolean file : new boolean[] {false, true}) {
            Flux<VectorSchemaRoot> in = Flux.defer(() -> Flux.just(batch(0, 10), batch(10, 5)));
            Flux<byte[]> bytes = file ? IpcEncoders.file(in, null, alloc) : IpcEncoders.stream(in, SCHEMA, alloc);
            assertThat(decodeIds(bytes)).hasSize(15).startsWith(0L).endsWith(14L);
        }
        assertThat(IpcStreamDecoder.decode(IpcEncoders.file(Flux.empty(), SCHEMA, alloc), alloc, 1 << 20).collectList().block())
                .containsExactly(SCHEMA);
    }
}
