package io.javelin.tx.version;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.Golden;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.VersionNotFoundException;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.store.InMemoryManifestStore;
import org.junit.jupiter.api.Test;

class VersionResolverTest {

    @Test
    void names() {
        assertThat(ManifestNaming.V2.fileName(1)).isEqualTo("18446744073709551614.manifest");
        assertThat(ManifestNaming.V2.fileName(42)).isEqualTo("18446744073709551573.manifest");
        assertThat(ManifestNaming.V2.fileName(6)).isEqualTo("18446744073709551609.manifest");
        assertThat(ManifestNaming.V2.fileName(Long.MAX_VALUE)).isEqualTo("09223372036854775808.manifest");
        assertThat(ManifestNaming.V1.fileName(7)).isEqualTo("7.manifest");
        assertThat(ManifestNaming.V1.path(7)).isEqualTo("_versions/7.manifest");
        assertThatThrownBy(() -> ManifestNaming.V1.fileName(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void parse() {
        assertThat(ManifestNaming.parseVersion("18446744073709551614.manifest")).isEqualTo(1);
        assertThat(ManifestNaming.detect("18446744073709551614.manifest")).isEqualTo(ManifestNaming.V2);
        assertThat(ManifestNaming.parseVersion("09223372036854775808.manifest")).isEqualTo(Long.MAX_VALUE);
        assertThat(ManifestNaming.parseVersion("12.manifest")).isEqualTo(12);
        assertThat(ManifestNaming.detect("12.manifest")).isEqualTo(ManifestNaming.V1);
        for (String junk : new String[] {"5.manifest-cee4fbbb-1111", "latest_version_hint.json", "d9223372036854775809.manifest",
                ".manifest", "x.manifest", "012.manifest", "0.manifest", "-1.manifest", "18446744073709551615.manifest",
                "99999999999999999999.manifest", "1.2.manifest"}) {
            assertThat(ManifestNaming.parseVersion(junk)).as(junk).isEqualTo(-1);
        }
        for (long v : new long[] {1, 2, 9, 10, 99, 100, 12345678901L}) {
            for (ManifestNaming n : ManifestNaming.values()) {
                assertThat(ManifestNaming.parseVersion(n.fileName(v))).isEqualTo(v);
                assertThat(ManifestNaming.detect(n.fileName(v))).isEqualTo(n);
            }
        }
    }

    @Test
    void goldenLatestWithOneListOnALexicalStore() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, true);
        VersionResolver r = new VersionResolver(store);
        ManifestLocation latest = r.latest().block();
        assertThat(latest.version()).isEqualTo(6);
        assertThat(latest.naming()).isEqualTo(ManifestNaming.V2);
        assertThat(latest.size()).isEqualTo(734);
        assertThat(store.lists()).isEqualTo(1);
        assertThat(store.reads()).isZero();
        assertThat(r.hint().block()).isEqualTo(6);
        assertThat(r.list().block()).extracting(ManifestLocation::version).containsExactly(1L, 2L, 3L, 4L, 5L, 6L);
    }

    @Test
    void goldenLatestOnAnUnorderedStore() {
        VersionResolver r = new VersionResolver(Golden.store(Golden.VERSIONS_DELETES, false));
        assertThat(r.latest().block().version()).isEqualTo(6);
    }

    @Test
    void readAnyVersion() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, true);
        VersionResolver r = new VersionResolver(store);
        for (long v = 1; v <= 6; v++) {
            store.resetCounters();
            assertThat(r.read(v, null).block().version()).isEqualTo(v);
            assertThat(store.reads()).as("one GET for a V2 dataset").isEqualTo(1);
        }
        assertThatThrownBy(() -> r.read(7, null).block()).isInstanceOf(VersionNotFoundException.class)
                .hasMessage("Dataset version 7 does not exist");
    }

    @Test
    void v1Datasets() {
        for (boolean lexical : new boolean[] {true, false}) {
            InMemoryManifestStore store = new InMemoryManifestStore(lexical);
            for (long v = 1; v <= 12; v++) {
                store.seed(ManifestNaming.V1.path(v), ManifestCodec.encode(Manifest.newBuilder().setVersion(v).build(), null, null));
            }
            VersionResolver r = new VersionResolver(store);
            ManifestLocation latest = r.latest().block();
            assertThat(latest.version()).isEqualTo(12); // "9.manifest" sorts after "12.manifest"
            assertThat(latest.naming()).isEqualTo(ManifestNaming.V1);
            assertThat(r.read(10, null).block().version()).isEqualTo(10);
        }
    }

    @Test
    void mixedSchemesAreAnError() {
        for (boolean lexical : new boolean[] {true, false}) {
            InMemoryManifestStore store = new InMemoryManifestStore(lexical);
            store.seed(ManifestNaming.V1.path(1), new byte[0]);
            store.seed(ManifestNaming.V2.path(2), new byte[0]);
            assertThatThrownBy(() -> new VersionResolver(store).latest().block())
                    .isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("multiple manifest naming schemes");
        }
    }

    @Test
    void emptyDataset() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        store.seed("_versions/3.manifest-3c4f", new byte[0]); // staging leftovers are not versions
        assertThatThrownBy(() -> new VersionResolver(store).latest().block()).isInstanceOf(VersionNotFoundException.class);
    }

    @Test
    void fileNameAndContentMustAgree() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        store.seed(ManifestNaming.V2.path(2), ManifestCodec.encode(Manifest.newBuilder().setVersion(3).build(), null, null));
        assertThatThrownBy(() -> new VersionResolver(store).read(2, null).block())
                .hasMessageContaining("Manifest says version 3 but its file name says 2");
    }

    @Test
    void latestFromAStaleOrMissingHint() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, false);
        VersionResolver r = new VersionResolver(store);
        assertThat(r.latestFromHint().block().version()).isEqualTo(6);
        store.seed(VersionHint.PATH, VersionHint.encode(3)); // stale: probe upward
        store.resetCounters();
        assertThat(r.latestFromHint().block().version()).isEqualTo(6);
        assertThat(store.lists()).isZero();
        store.seed(VersionHint.PATH, VersionHint.encode(60)); // points past the end: fall back to listing
        assertThat(r.latestFromHint().block().version()).isEqualTo(6);
        store.seed(VersionHint.PATH, "garbage".getBytes());
        assertThat(r.latestFromHint().block().version()).isEqualTo(6);
    }

    @Test
    void hint() {
        assertThat(new String(VersionHint.encode(6))).isEqualTo("{\"version\":6}");
        assertThat(VersionHint.encode(6)).isEqualTo(Golden.bytes(Golden.VERSIONS_DELETES, "_versions/latest_version_hint.json"));
        assertThat(VersionHint.decode("{ \"version\" : 17 }".getBytes())).isEqualTo(17);
        for (String bad : new String[] {"", "[]", "{\"version\":\"x\"}", "{\"version\":0}", "{"}) {
            assertThatThrownBy(() -> VersionHint.decode(bad.getBytes())).isInstanceOf(io.javelin.tx.CorruptFileException.class);
        }
    }
}
