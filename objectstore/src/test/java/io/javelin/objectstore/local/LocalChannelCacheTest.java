package io.javelin.objectstore.local;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.InvalidRangeException;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.memory.Buffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The local store's cache of open read channels: bounded, invalidated by writes, closed with the store. */
class LocalChannelCacheTest {

    private LocalObjectStore store;
    private Path dir;

    @BeforeEach
    void setUp() throws Exception {
        Path work = Path.of(System.getProperty("javelin.test.workdir", "target/test-work"));
        Files.createDirectories(work);
        dir = Files.createTempDirectory(work, "channels");
        store = new LocalObjectStore(dir, 4);
    }

    @AfterEach
    void tearDown() {
        store.close();
    }

    private byte[] read(String key, long off, long len) {
        Buffer b = store.read(key, off, len).block(Duration.ofSeconds(10));
        try {
            return b.toByteArray();
        } finally {
            b.release();
        }
    }

    @Test
    void rangedReadsReuseOneChannelPerObject() {
        byte[] data = new byte[100_000];
        new Random(3).nextBytes(data);
        store.put("data/a.lance", data).block();
        for (int i = 0; i < 50; i++) {
            int off = i * 1000;
            assertThat(read("data/a.lance", off, 1000)).isEqualTo(Arrays.copyOfRange(data, off, off + 1000));
        }
        assertThat(store.openChannels()).isEqualTo(1);
        assertThatThrownBy(() -> read("data/a.lance", 99_000, 2000)).isInstanceOf(InvalidRangeException.class);
        store.close();
        assertThat(store.openChannels()).isZero();
    }

    @Test
    void boundedAndInvalidatedByWritesAndDeletes() {
        int n = LocalObjectStore.OPEN_CHANNELS + 20;
        for (int i = 0; i < n; i++) {
            store.put("f" + i, new byte[] {(byte) i, 1, 2, 3}).block();
            assertThat(read("f" + i, 0, 1)[0]).isEqualTo((byte) i);
        }
        assertThat(store.openChannels()).isEqualTo(LocalObjectStore.OPEN_CHANNELS);
        // a put replaces the file (rename): the next read must see the new bytes, not the cached old inode
        store.put("f" + (n - 1), new byte[] {42, 43}).block();
        assertThat(read("f" + (n - 1), 0, 2)).containsExactly(42, 43);
        store.delete("f" + (n - 1)).block();
        assertThatThrownBy(() -> read("f" + (n - 1), 0, 1)).isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void cancelledReadsDoNotBreakTheSharedChannelForOthers() {
        byte[] data = new byte[4 << 20];
        new Random(5).nextBytes(data);
        store.put("big", data).block();
        AtomicInteger ok = new AtomicInteger();
        Random rnd = new Random(9);
        // Cancelling a running read interrupts its thread, which closes the FileChannel shared by all reads
        // of this object; the others must reopen it and still return the right bytes.
        Flux.range(0, 400)
                .flatMap(i -> {
                    int off = rnd.nextInt(data.length - 65536);
                    Mono<Buffer> r = store.read("big", off, 65536).subscribeOn(Schedulers.parallel());
                    if (i % 3 == 0) {
                        return r.doOnNext(Buffer::release).take(Duration.ofNanos(1 + rnd.nextInt(200_000))).then();
                    }
                    return r.map(b -> {
                        try {
                            assertThat(b.toByteArray()).isEqualTo(Arrays.copyOfRange(data, off, off + 65536));
                            ok.incrementAndGet();
                            return 1;
                        } finally {
                            b.release();
                        }
                    }).then();
                }, 16)
                .blockLast(Duration.ofSeconds(60));
        assertThat(ok.get()).isEqualTo(400 - 134);
    }
}
