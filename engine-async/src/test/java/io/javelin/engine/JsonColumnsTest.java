package io.javelin.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.maintenance.CompactionOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/** A JSON (arrow.json) column written by Javelin is stored as JSONB and read back as JSON text by scans, takes and filters. */
class JsonColumnsTest {

    static final Schema SCHEMA = new Schema(List.of(
            new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field("j", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("ARROW:extension:name", "arrow.json")), null)));

    @TempDir
    Path dir;

    static Flux<VectorSchemaRoot> rows(BufferAllocator alloc, int from, int n) {
        return Flux.defer(() -> {
            VectorSchemaRoot b = VectorSchemaRoot.create(SCHEMA, alloc);
            b.allocateNew();
            for (int i = 0; i < n; i++) {
                ((BigIntVector) b.getVector("id")).setSafe(i, from + i);
                if ((from + i) % 5 == 4) {
                    ((VarCharVector) b.getVector("j")).setNull(i);
                } else {
                    String doc = "{ \"n\": " + (from + i) + ", \"tag\": \"t" + (from + i) % 3 + "\", \"f\": " + (from + i) / 4.0 + " }";
                    ((VarCharVector) b.getVector("j")).setSafe(i, doc.getBytes(StandardCharsets.UTF_8));
                }
            }
            b.setRowCount(n);
            return Flux.just(b);
        });
    }

    static String expected(long id) {
        return id % 5 == 4 ? null : "{\"f\":" + io.javelin.engine.jsonb.JsonbNumbers.formatDouble(id / 4.0) + ",\"n\":" + id + ",\"tag\":\"t" + id % 3 + "\"}";
    }

    static List<String> scan(Dataset ds, String filter, BufferAllocator alloc, List<Field> fields) {
        List<String> out = new ArrayList<>();
        var s = ds.scanner();
        if (filter != null) {
            s = s.filter(filter);
        }
        for (VectorSchemaRoot b : s.scan(alloc).publishOn(Schedulers.boundedElastic(), 1).toIterable(1)) {
            try (b) {
                fields.add(b.getSchema().findField("j"));
                for (int i = 0; i < b.getRowCount(); i++) {
                    Object v = b.getVector("j").getObject(i);
                    out.add(v == null ? null : v.toString());
                }
            }
        }
        return out;
    }

    @Test
    void writtenAsJsonbReadAsText() {
        String uri = dir.resolve("j.lance").toString();
        try (BufferAllocator alloc = new RootAllocator()) {
            Dataset.write(uri, rows(alloc, 0, 100), SCHEMA, WriteParams.of(WriteMode.CREATE)).block().close();
            try (Dataset ds = Dataset.open(uri).block()) {
                ds.append(rows(alloc, 100, 50), SCHEMA).block().close();
            }
            try (Dataset ds = Dataset.open(uri).block()) {
                assertThat(ds.schema().findField("j").getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
                assertThat(ds.schema().findField("j").getMetadata()).containsEntry("ARROW:extension:name", "lance.json");
                List<Field> fields = new ArrayList<>();
                List<String> all = scan(ds, null, alloc, fields);
                assertThat(all).hasSize(150);
                for (int id = 0; id < 150; id++) {
                    assertThat(all.get(id)).isEqualTo(expected(id));
                }
                assertThat(fields).allSatisfy(f -> {
                    assertThat(f.getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
                    assertThat(f.getMetadata()).containsEntry("ARROW:extension:name", "arrow.json");
                });
                assertThat(scan(ds, "json_get_string(j, 'tag') = 't1' AND json_get_int(j, 'n') >= 140", alloc, new ArrayList<>()))
                        .containsExactly(expected(142), expected(145), expected(148));
                try (VectorSchemaRoot t = ds.take(new long[] {3, 120}, List.of("j"), alloc).block()) {
                    assertThat(t.getVector("j").getObject(0).toString()).isEqualTo(expected(3));
                    assertThat(t.getVector("j").getObject(1).toString()).isEqualTo(expected(120));
                }
                ds.compact(CompactionOptions.defaults().withTargetRowsPerFragment(1000)).block();
            }
            try (Dataset ds = Dataset.open(uri).block()) {
                List<String> after = scan(ds, "json_get_float(j, 'f') > 30", alloc, new ArrayList<>());
                assertThat(after).hasSize(150 - 121 - 6).allSatisfy(s -> assertThat(s).contains("\"n\":"));
                assertThat(ds.schema().findField("j").getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
            }
        }
    }
}
