package io.javelin.tx.tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.CorruptFileException;
import io.javelin.tx.Golden;
import io.javelin.tx.InvalidNameException;
import io.javelin.tx.RefAlreadyExistsException;
import io.javelin.tx.RefNotFoundException;
import io.javelin.tx.VersionNotFoundException;
import io.javelin.tx.store.InMemoryManifestStore;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TagStoreTest {

    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-29T12:00:00.123456789Z"), ZoneOffset.UTC);

    @Test
    void goldenTagsDecodeAndReEncodeByteForByte() {
        for (String name : new String[] {"after_append", "with_deletes"}) {
            String p = "_refs/tags/" + name + ".json";
            byte[] bytes = Golden.bytes(Golden.VERSIONS_DELETES, p);
            Tag t = TagJson.decode(name, p, bytes);
            assertThat(t.branch()).isNull();
            assertThat(t.createdAt()).isNotNull();
            assertThat(t.updatedAt()).isEqualTo(t.createdAt());
            assertThat(t.metadata()).isEmpty();
            assertThat(TagJson.encode(t)).as(name).isEqualTo(bytes);
        }
        Tag a = TagJson.decode("after_append", "p", Golden.bytes(Golden.VERSIONS_DELETES, "_refs/tags/after_append.json"));
        assertThat(a.version()).isEqualTo(4);
        assertThat(a.manifestSize()).isEqualTo(628);
    }

    @Test
    void listAndReadGoldenTags() {
        TagStore tags = new TagStore(Golden.store(Golden.VERSIONS_DELETES, true), CLOCK);
        Map<String, Tag> all = tags.list().block();
        assertThat(all).containsOnlyKeys("after_append", "with_deletes");
        assertThat(all.get("with_deletes").version()).isEqualTo(6);
        assertThat(all.get("with_deletes").manifestSize()).isEqualTo(734);
    }

    @Test
    void createUpdateDelete() {
        InMemoryManifestStore store = Golden.store(Golden.VERSIONS_DELETES, true);
        TagStore tags = new TagStore(store, CLOCK);
        Tag t = tags.create("v1.0-β", 3, Map.of("owner", "me \"quoted\"\n")).block();
        assertThat(t.manifestSize()).isEqualTo(749);
        String json = new String(store.peek("_refs/tags/v1.0-β.json"), StandardCharsets.UTF_8);
        assertThat(json).isEqualTo("""
                {
                  "branch": null,
                  "version": 3,
                  "createdAt": "2026-11-29T12:00:00.123456789Z",
                  "updatedAt": "2026-11-29T12:00:00.123456789Z",
                  "manifestSize": 749,
                  "metadata": {
                    "owner": "me \\"quoted\\"\\n"
                  }
                }""");
        assertThat(tags.read("v1.0-β").block()).isEqualTo(t);
        assertThatThrownBy(() -> tags.create("v1.0-β", 2, Map.of()).block()).isInstanceOf(RefAlreadyExistsException.class);
        assertThatThrownBy(() -> tags.create("nope", 99, Map.of()).block()).isInstanceOf(VersionNotFoundException.class);
        Tag moved = tags.update("v1.0-β", 5).block();
        assertThat(moved.version()).isEqualTo(5);
        assertThat(moved.manifestSize()).isEqualTo(922);
        assertThat(moved.metadata()).containsEntry("owner", "me \"quoted\"\n");
        assertThat(tags.list().block()).containsOnlyKeys("after_append", "v1.0-β", "with_deletes");
        tags.delete("v1.0-β").block();
        assertThatThrownBy(() -> tags.read("v1.0-β").block()).isInstanceOf(RefNotFoundException.class);
        assertThatThrownBy(() -> tags.delete("v1.0-β").block()).isInstanceOf(RefNotFoundException.class);
        assertThatThrownBy(() -> tags.update("ghost", 1).block()).isInstanceOf(RefNotFoundException.class);
    }

    @Test
    void hostileNames() {
        TagStore tags = new TagStore(Golden.store(Golden.VERSIONS_DELETES, true), CLOCK);
        for (String bad : new String[] {"", ".", "..", "a..b", ".hidden", "x.", "a/b", "../x", "..\\x", "a\\b", "x.lock",
                "a b", "a\u0000b", "tag:1", "%2F", "/abs", "a\nb", "emoji🙂"}) {
            assertThatThrownBy(() -> TagNames.check(bad)).as(bad).isInstanceOf(InvalidNameException.class);
            assertThatThrownBy(() -> tags.create(bad, 1, Map.of()).block()).as(bad).isInstanceOf(InvalidNameException.class);
            assertThatThrownBy(() -> tags.read(bad).block()).as(bad).isInstanceOf(InvalidNameException.class);
        }
        for (String good : new String[] {"v1", "after_append", "日本語", "tag-1_2.x", "Ⅻ", "x.locked"}) {
            assertThat(TagNames.check(good)).isEqualTo(good);
        }
    }

    @Test
    void hostileTagFiles() {
        for (String bad : new String[] {"", "[]", "{}", "{\"version\":-1}", "{\"version\":1,\"branch\":3}",
                "{\"version\":1,\"createdAt\":\"yesterday\"}", "{\"version\":1,\"metadata\":[]}"}) {
            assertThatThrownBy(() -> TagJson.decode("t", "p", bad.getBytes())).as(bad).isInstanceOf(CorruptFileException.class);
        }
        Tag old = TagJson.decode("t", "p", "{\"branch\":null,\"version\":2,\"manifestSize\":10,\"future\":true}".getBytes());
        assertThat(old.createdAt()).isNull();
        assertThat(old.version()).isEqualTo(2);
    }
}
