package io.javelin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code javelin import} of blob columns marked either way (blob v2 picks format 2.2, legacy stays 2.1) and
 * {@code javelin blobs}: {@code row size sha256} lines, or payload files with {@code --out}.
 */
class BlobsCliTest {

    @TempDir
    Path tmp;

    static byte[] payload(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    static String sha(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** Rows: inline, packed, dedicated, null, empty. */
    static final List<byte[]> VALUES = new ArrayList<>(java.util.Arrays.asList(payload(100, 1), payload(200_000, 2),
            payload(4_500_000, 3), null, new byte[0]));

    Path ipc(boolean v2) throws Exception {
        Field blob = v2
                ? new Field("blob", new FieldType(true, ArrowType.Struct.INSTANCE, null, Map.of("ARROW:extension:name", "lance.blob.v2")),
                        List.of(new Field("data", FieldType.nullable(ArrowType.LargeBinary.INSTANCE), null),
                                new Field("uri", FieldType.nullable(ArrowType.Utf8.INSTANCE), null)))
                : new Field("blob", new FieldType(true, ArrowType.LargeBinary.INSTANCE, null, Map.of("lance-encoding:blob", "true")), null);
        Schema schema = new Schema(List.of(new Field("id", FieldType.notNullable(new ArrowType.Int(64, true)), null), blob));
        Path file = tmp.resolve(v2 ? "v2.arrow" : "legacy.arrow");
        try (BufferAllocator a = new RootAllocator(); VectorSchemaRoot root = VectorSchemaRoot.create(schema, a);
             var ch = Files.newByteChannel(file, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.WRITE);
             ArrowFileWriter w = new ArrowFileWriter(root, null, ch)) {
            root.allocateNew();
            for (int i = 0; i < VALUES.size(); i++) {
                ((BigIntVector) root.getVector("id")).setSafe(i, i);
                byte[] b = VALUES.get(i);
                if (v2) {
                    StructVector s = (StructVector) root.getVector("blob");
                    ((VarCharVector) s.getChild("uri")).setNull(i);
                    if (b == null) {
                        s.setNull(i);
                        ((LargeVarBinaryVector) s.getChild("data")).setNull(i);
                    } else {
                        s.setIndexDefined(i);
                        ((LargeVarBinaryVector) s.getChild("data")).setSafe(i, b);
                    }
                } else if (b == null) {
                    ((LargeVarBinaryVector) root.getVector("blob")).setNull(i);
                } else {
                    ((LargeVarBinaryVector) root.getVector("blob")).setSafe(i, b);
                }
            }
            root.setRowCount(VALUES.size());
            w.start();
            w.writeBatch();
            w.end();
        }
        return file;
    }

    @Test
    void importAndPrintBothBlobKinds() throws Exception {
        for (boolean v2 : new boolean[] {true, false}) {
            String uri = tmp.resolve(v2 ? "ds2" : "ds1").toString();
            var imp = DatasetCliTest.run("import", ipc(v2).toString(), uri);
            assertThat(imp.exit()).as(imp.err()).isZero();
            assertThat(imp.out()).contains("data storage " + (v2 ? "2.2" : "2.1"));
            var r = DatasetCliTest.run("blobs", uri, "--column", "blob", "--rows", "0,1,2,3,4");
            assertThat(r.exit()).as(r.err()).isZero();
            List<String> want = new ArrayList<>();
            for (int i = 0; i < VALUES.size(); i++) {
                byte[] b = VALUES.get(i);
                want.add(b == null ? i + " null -" : i + " " + b.length + " " + sha(b));
            }
            assertThat(r.out().lines().toList()).as("v2=%s", v2).isEqualTo(want);
        }
        if (Files.exists(tmp.resolve("ds2/data"))) {
            try (var s = Files.walk(tmp.resolve("ds2/data"))) {
                assertThat(s.filter(p -> p.toString().endsWith(".blob")).count()).isEqualTo(2); // packed + dedicated
            }
        }
        Path out = tmp.resolve("out");
        var r = DatasetCliTest.run("blobs", tmp.resolve("ds2").toString(), "--column", "blob", "--rows", "2,0,3", "--out", out.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(Files.readAllBytes(out.resolve("row-2.bin"))).isEqualTo(VALUES.get(2));
        assertThat(Files.readAllBytes(out.resolve("row-0.bin"))).isEqualTo(VALUES.get(0));
        assertThat(out.resolve("row-3.bin")).doesNotExist();
        try (var s = Files.list(out)) {
            assertThat(s.map(p -> p.getFileName().toString()).sorted().toList()).containsExactly("row-0.bin", "row-2.bin");
        }
        var bad = DatasetCliTest.run("blobs", tmp.resolve("ds2").toString(), "--column", "id", "--rows", "0");
        assertThat(bad.exit()).isNotZero();
        assertThat(bad.err()).contains("not a blob column");
        // legacy metadata refused for 2.2 (spec 001)
        var refused = DatasetCliTest.run("import", ipc(false).toString(), tmp.resolve("ds3").toString(), "--data-storage-version", "2.2");
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.err().getBytes(StandardCharsets.UTF_8).length).isPositive();
        assertThat(refused.err()).contains("legacy blob metadata");
    }
}
