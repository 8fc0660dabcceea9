package io.javelin.tx.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javelin.tx.CorruptManifestException;
import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Golden;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.Snapshot;
import io.javelin.tx.Table;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.schema.ArrowSchemas;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.transaction.OperationKind;
import io.javelin.tx.version.ManifestNaming;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every version of the Lance 7.0.0 versions_deletes dataset, at the metadata level, against its sidecar. */
class GoldenVersionsDeletesTest {

    static JsonNode expected() throws IOException {
        return new ObjectMapper().readTree(GoldenVersionsDeletesTest.class.getResourceAsStream("/golden/versions_deletes.expected.json"));
    }

    @Test
    void everyVersionMatchesTheSidecar() throws IOException {
        JsonNode byVersion = expected().get("by_version");
        Table table = new Table(Golden.store(Golden.VERSIONS_DELETES, true));
        assertThat(table.open().block().version()).isEqualTo(6);
        for (long v = 1; v <= 6; v++) {
            JsonNode exp = byVersion.get(Long.toString(v));
            Snapshot s = table.checkout(v).block();
            assertThat(s.version()).isEqualTo(v);
            assertThat(s.dataStorageVersion()).isEqualTo(exp.get("data_storage_version").asText());
            assertThat(s.countRows()).as("row_count v%d", v).isEqualTo(exp.get("row_count").asLong());
            JsonNode frags = exp.get("fragments");
            assertThat(s.fragments()).hasSize(frags.size());
            Map<Long, Long> actualDeleted = s.verifyDeletions().block();
            for (int i = 0; i < frags.size(); i++) {
                JsonNode ef = frags.get(i);
                FragmentInfo f = s.fragments().get(i);
                assertThat(f.id()).isEqualTo(ef.get("id").asLong());
                assertThat(f.physicalRows()).isEqualTo(ef.get("physical_rows").asLong());
                assertThat(f.deletedRows()).isEqualTo(ef.get("num_deletions").asLong());
                assertThat(actualDeleted.get(f.id())).as("deletion file count v%d f%d", v, f.id()).isEqualTo(f.deletedRows());
                assertThat(f.liveRows()).isEqualTo(ef.get("rows").asLong());
                if (ef.has("deletion_file")) {
                    JsonNode d = ef.get("deletion_file");
                    assertThat(DeletionFiles.path(f.id(), f.fragment().getDeletionFile())).isEqualTo(d.get("path").asText());
                    assertThat(f.fragment().getDeletionFile().getFileType().name())
                            .isEqualTo(d.get("type").asText().equals("ARRAY") ? "ARROW_ARRAY" : "BITMAP");
                }
                JsonNode files = ef.get("data_files");
                assertThat(f.fragment().getFilesList()).extracting(df -> "data/" + df.getPath())
                        .containsExactlyElementsOf(iter(files, "path"));
                assertThat(f.fragment().getFilesList()).extracting(df -> df.getFileSizeBytes())
                        .containsExactlyElementsOf(iter(files, "size").stream().map(Long::parseLong).toList());
            }
            // schema: names, nullability and Arrow types of the sidecar
            JsonNode schema = exp.get("schema");
            var arrow = ArrowSchemas.toArrow(s.schema()).getFields();
            assertThat(arrow).hasSize(schema.size());
            for (int i = 0; i < schema.size(); i++) {
                assertThat(arrow.get(i).getName()).isEqualTo(schema.get(i).get("name").asText());
                assertThat(arrow.get(i).isNullable()).isEqualTo(schema.get(i).get("nullable").asBoolean());
                assertThat(canonical(arrow.get(i).getType().toString())).isEqualTo(schema.get(i).get("type").asText());
            }
        }
    }

    @Test
    void operationsOfEachVersion() {
        Table table = new Table(Golden.store(Golden.VERSIONS_DELETES, true));
        List<OperationKind> ops = java.util.stream.LongStream.rangeClosed(1, 6)
                .mapToObj(v -> OperationKind.of(table.checkout(v).block().manifestFile().transaction())).toList();
        assertThat(ops).containsExactly(OperationKind.OVERWRITE, OperationKind.DELETE, OperationKind.OVERWRITE,
                OperationKind.APPEND, OperationKind.DELETE, OperationKind.DELETE);
    }

    @Test
    void tagsResolveToTheirVersions() throws IOException {
        Table table = new Table(Golden.store(Golden.VERSIONS_DELETES, true));
        expected().get("tag_versions").properties().forEach(e -> {
            assertThat(table.checkout(e.getKey()).block().version()).isEqualTo(e.getValue().asLong());
            assertThat(table.tags().read(e.getKey()).block().manifestSize())
                    .isEqualTo(Golden.bytes(Golden.VERSIONS_DELETES, ManifestNaming.V2.path(e.getValue().asLong())).length);
        });
        assertThat(table.checkout("with_deletes").block().countRows()).isEqualTo(9450);
    }

    @Test
    void aBrokenLatestManifestLeavesOlderVersionsReadable() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, true);
        byte[] v6 = Golden.bytes(Golden.VERSIONS_DELETES, ManifestNaming.V2.path(6));
        store.seed(ManifestNaming.V2.path(7), Arrays.copyOf(v6, 300)); // a torn write
        Table table = new Table(store);
        assertThatThrownBy(() -> table.open().block()).isInstanceOf(CorruptManifestException.class)
                .hasMessageContaining("path=" + ManifestNaming.V2.path(7));
        assertThat(table.openLastGood().block().version()).isEqualTo(6);
        assertThat(table.checkout(6).block().countRows()).isEqualTo(9450);

        // hostile v7: fragment ids out of order, a path escaping the dataset
        Manifest good = ManifestCodec.decode("v6", v6).manifest();
        Manifest swapped = good.toBuilder().setVersion(7).setFragments(0, good.getFragments(2)).setFragments(2, good.getFragments(0)).build();
        store.seed(ManifestNaming.V2.path(7), ManifestCodec.encode(swapped, null, null));
        assertThatThrownBy(() -> table.open().block()).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("out of order");
        assertThat(table.openLastGood().block().version()).isEqualTo(6);
        Manifest escaping = good.toBuilder().setVersion(7).setFragments(0, good.getFragments(0).toBuilder()
                .setFiles(0, good.getFragments(0).getFiles(0).toBuilder().setPath("../../etc/passwd"))).build();
        store.seed(ManifestNaming.V2.path(7), ManifestCodec.encode(escaping, null, null));
        assertThatThrownBy(() -> table.open().block()).isInstanceOf(InvalidTableMetadataException.class)
                .hasMessageContaining("escapes");
        assertThat(table.openLastGood().block().version()).isEqualTo(6);

        // an unknown reader flag is not "broken": it must not be skipped silently
        store.seed(ManifestNaming.V2.path(7), ManifestCodec.encode(good.toBuilder().setVersion(7).setReaderFeatureFlags(64).build(), null, null));
        assertThatThrownBy(() -> table.openLastGood().block()).isInstanceOf(UnsupportedFeatureException.class);
    }

    private static List<String> iter(JsonNode array, String key) {
        List<String> out = new java.util.ArrayList<>();
        array.forEach(n -> out.add(n.get(key).asText()));
        return out;
    }

    /** Arrow Java's type names → the sidecar's canonical names, for the four golden columns. */
    private static String canonical(String arrowJava) {
        return switch (arrowJava) {
            case "Int(64, true)" -> "int64";
            case "Int(32, true)" -> "int32";
            case "Utf8" -> "utf8";
            case "FloatingPoint(DOUBLE)" -> "float64";
            default -> arrowJava;
        };
    }
}
