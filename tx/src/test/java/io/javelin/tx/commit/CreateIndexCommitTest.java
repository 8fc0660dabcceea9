package io.javelin.tx.commit;

import static io.javelin.tx.commit.CommitEngineTest.FAST;
import static io.javelin.tx.commit.CommitEngineTest.create;
import static io.javelin.tx.commit.CommitEngineTest.fragment;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.javelin.tx.pb.IndexMetadata;
import io.javelin.tx.pb.UUID;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.transaction.Transactions;
import java.util.List;
import org.junit.jupiter.api.Test;

/** CreateIndex commits: removal is by the raw uuid bytes; concurrent CreateIndex and Append both land. */
class CreateIndexCommitTest {

    static IndexMetadata index(String name, int firstByte) {
        byte[] uuid = new byte[16];
        uuid[0] = (byte) firstByte; // 0xFE / 0xFF: not valid UTF-8
        return IndexMetadata.newBuilder().setName(name).addFields(0).setDatasetVersion(1)
                .setUuid(UUID.newBuilder().setUuid(ByteString.copyFrom(uuid))).setIndexVersion(0).build();
    }

    @Test
    void removedIndicesAreMatchedByUuidBytes() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST);
        create(engine);
        IndexMetadata a = index("a", 0xFF);
        IndexMetadata b = index("b", 0xFE);
        engine.commit(Transactions.createIndex(1, List.of(a, b), List.of())).block();
        CommitResult v3 = engine.commit(Transactions.createIndex(2, List.of(index("c", 1)), List.of(a))).block();
        assertThat(v3.manifest().indexSection().getIndicesList()).extracting(IndexMetadata::getName).containsExactly("b", "c");
    }

    @Test
    void createIndexRebasesOverAConcurrentAppend() {
        InMemoryManifestStore mem = new InMemoryManifestStore();
        CommitEngine engine = new CommitEngine(mem, FAST);
        create(engine);
        engine.commit(Transactions.append(1, List.of(fragment("b", 5)))).block();
        // built from version 1, committed after the append: kept, covering only what it indexed
        CommitResult r = engine.commit(Transactions.createIndex(1, List.of(index("a", 3)), List.of())).block();
        assertThat(r.version()).isEqualTo(3);
        assertThat(r.manifest().manifest().getFragmentsCount()).isEqualTo(2);
        assertThat(r.manifest().indexSection().getIndicesList()).extracting(IndexMetadata::getName).containsExactly("a");
    }
}
