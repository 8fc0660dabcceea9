package io.javelin.tx.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.store.InMemoryManifestStore;
import io.javelin.tx.store.ManifestStore;
import io.javelin.tx.store.StoreAlreadyExistsException;
import io.javelin.tx.store.StoreEntry;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Regression (found by the commit torture): a deletion file whose create landed but whose
 * acknowledgement was lost came back as "already exists (ambiguous)" from the retry, and the delete
 * (or the rebase of a concurrent delete inside a commit) failed although the file was ours.
 */
class DeletionFileLostAckTest {

    /** Applies every create, then reports it as an ambiguous "already exists" (the retry after a lost ack). */
    static final class LostAckStore implements ManifestStore {
        final InMemoryManifestStore inner = new InMemoryManifestStore();
        byte[] foreign;

        @Override
        public Mono<byte[]> read(String path) {
            return inner.read(path);
        }

        @Override
        public Mono<Void> put(String path, byte[] bytes) {
            return inner.put(path, bytes);
        }

        @Override
        public Mono<Void> putIfAbsent(String path, byte[] bytes) {
            return inner.putIfAbsent(path, foreign != null ? foreign : bytes)
                    .then(Mono.error(new StoreAlreadyExistsException(path, true)));
        }

        @Override
        public Flux<StoreEntry> list(String prefix) {
            return inner.list(prefix);
        }

        @Override
        public Mono<Void> delete(String path) {
            return inner.delete(path);
        }

        @Override
        public boolean listsInLexicalOrder() {
            return inner.listsInLexicalOrder();
        }
    }

    @Test
    void ourOwnFileBehindALostAckIsASuccess() {
        LostAckStore store = new LostAckStore();
        RoaringBitmap deleted = RoaringBitmap.bitmapOf(1, 5, 9);
        DeletionFile df = DeletionFiles.write(store, 3, 7, deleted).block();
        assertThat(df.getNumDeletedRows()).isEqualTo(3);
        DataFragment f = DataFragment.newBuilder().setId(3).setPhysicalRows(10).setDeletionFile(df).build();
        assertThat(DeletionFiles.read(store, f).block()).isEqualTo(deleted);
    }

    @Test
    void someoneElsesBytesAtThePathStillFail() {
        LostAckStore store = new LostAckStore();
        store.foreign = new byte[] {1, 2, 3};
        assertThatThrownBy(() -> DeletionFiles.write(store, 3, 7, RoaringBitmap.bitmapOf(1)).block())
                .isInstanceOf(StoreAlreadyExistsException.class);
    }
}
