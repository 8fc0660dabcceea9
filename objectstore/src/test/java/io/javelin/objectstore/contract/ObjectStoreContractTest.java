package io.javelin.objectstore.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.ByteRange;
import io.javelin.objectstore.CreateIfAbsent;
import io.javelin.objectstore.InvalidPathException;
import io.javelin.objectstore.InvalidRangeException;
import io.javelin.objectstore.ListPage;
import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectMeta;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.memory.Buffer;
import io.javelin.objectstore.memory.OffHeap;
import io.javelin.objectstore.metrics.StoreCounters;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The behaviour every store must have. Each store's test class supplies the store; every call is
 * subscribed on a Reactor non-blocking thread, so BlockHound fails any store that blocks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ObjectStoreContractTest {

    protected static final Duration T = Duration.ofSeconds(60);

    /** The store under test; opened once per class. Keys are made unique per test. */
    protected abstract ObjectStore store();

    /** Racing create-if-absent calls per store (the issue asks for 1000). */
    protected int racers() {
        return 1000;
    }

    /** Part size the store was opened with (streaming uploads above it are multipart). */
    protected long partSize() {
        return 5L * 1024 * 1024;
    }

    protected String base;

    @BeforeEach
    void newBase() {
        base = "t-" + UUID.randomUUID() + "/";
    }

    /** Subscribes on a non-blocking thread and waits (from the test thread, which may block). */
    protected static <T> T await(Mono<T> m) {
        return m.subscribeOn(Schedulers.parallel()).block(T);
    }

    protected static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    protected byte[] readAll(String key) {
        try (Buffer b = await(store().readAll(key))) {
            return b.toByteArray();
        }
    }

    @Test
    void putThenReadWholeRangeAndTail() {
        byte[] data = "hello, lance object store".getBytes(StandardCharsets.UTF_8);
        ObjectMeta put = await(store().put(base + "a.bin", data));
        assertThat(put.size()).isEqualTo(data.length);
        assertThat(readAll(base + "a.bin")).isEqualTo(data);
        try (Buffer r = await(store().read(base + "a.bin", 7, 5))) {
            assertThat(new String(r.toByteArray(), StandardCharsets.UTF_8)).isEqualTo("lance");
        }
        try (Buffer t = await(store().readTail(base + "a.bin", 5))) {
            assertThat(new String(t.toByteArray(), StandardCharsets.UTF_8)).isEqualTo("store");
        }
        try (Buffer t = await(store().readTail(base + "a.bin", 1000))) {
            assertThat(t.toByteArray()).isEqualTo(data);
        }
    }

    @Test
    void headReportsSizeAndEtag() {
        await(store().put(base + "h", bytes(1234, 1)));
        ObjectMeta m = await(store().head(base + "h"));
        assertThat(m.size()).isEqualTo(1234);
        assertThat(m.path()).isEqualTo(base + "h");
        assertThat(m.eTag()).isNotBlank();
    }

    @Test
    void missingObjectsAreTypedNotFound() {
        assertThatThrownBy(() -> await(store().head(base + "nope"))).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> await(store().readAll(base + "nope"))).isInstanceOf(ObjectNotFoundException.class);
        assertThatThrownBy(() -> await(store().read(base + "nope", 0, 10))).isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void rangeBeyondTheEndIsTyped() {
        await(store().put(base + "short", bytes(100, 2)));
        assertThatThrownBy(() -> await(store().read(base + "short", 90, 20))).isInstanceOf(InvalidRangeException.class);
    }

    @Test
    void overwriteReplacesContent() {
        await(store().put(base + "o", bytes(10, 1)));
        await(store().put(base + "o", bytes(20, 2)));
        assertThat(readAll(base + "o")).isEqualTo(bytes(20, 2));
    }

    @Test
    void createIfAbsentHasOneWinnerAndKeepsTheWinnersBytes() {
        ObjectMeta won = await(store().putIfAbsent(base + "m", bytes(64, 1)));
        assertThat(won.size()).isEqualTo(64);
        assertThatThrownBy(() -> await(store().putIfAbsent(base + "m", bytes(64, 2))))
                .isInstanceOf(ObjectAlreadyExistsException.class)
                .satisfies(e -> assertThat(((ObjectAlreadyExistsException) e).afterAmbiguousAttempt()).isFalse());
        assertThat(readAll(base + "m")).isEqualTo(bytes(64, 1));
    }

    @Test
    void createIfAbsentResolveTellsOursFromTheirs() {
        byte[] ours = bytes(300, 7);
        await(store().putIfAbsent(base + "r", ours));
        var sameAgain = await(CreateIfAbsent.create(store(), base + "r", ours));
        assertThat(sameAgain).isInstanceOf(CreateIfAbsent.Won.class);
        assertThat(((CreateIfAbsent.Won) sameAgain).recoveredByReadBack()).isTrue();
        var other = await(CreateIfAbsent.create(store(), base + "r", bytes(300, 8)));
        assertThat(other).isInstanceOf(CreateIfAbsent.Lost.class);
    }

    @Test
    void racingCreatesHaveExactlyOneWinnerAndTypedLosers() {
        String key = base + "race/00000000000000000001.manifest";
        int n = racers();
        AtomicInteger won = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        List<Throwable> other = java.util.Collections.synchronizedList(new ArrayList<>());
        Flux.range(0, n)
                .flatMap(i -> store().putIfAbsent(key, ("writer-" + i).getBytes(StandardCharsets.UTF_8))
                        .doOnNext(m -> won.incrementAndGet())
                        .onErrorResume(ObjectAlreadyExistsException.class, e -> {
                            lost.incrementAndGet();
                            return Mono.empty();
                        })
                        .onErrorResume(e -> {
                            other.add(e);
                            return Mono.empty();
                        }), 64)
                .subscribeOn(Schedulers.parallel())
                .blockLast(Duration.ofMinutes(3));
        assertThat(other).isEmpty();
        assertThat(won.get()).isEqualTo(1);
        assertThat(lost.get()).isEqualTo(n - 1);
        assertThat(new String(readAll(key), StandardCharsets.UTF_8)).startsWith("writer-");
    }

    @Test
    void streamingPutSmallIsOneRequest() {
        StoreCounters c = store().counters();
        var before = c.snapshot();
        byte[] data = bytes(1000, 3);
        await(store().put(base + "s", Flux.just(ByteBuffer.wrap(data, 0, 400), ByteBuffer.wrap(data, 400, 600))));
        var d = c.snapshot().minus(before);
        assertThat(d.requests(OpClass.WRITE)).isEqualTo(1);
        assertThat(readAll(base + "s")).isEqualTo(data);
    }

    @Test
    void streamingPutAbovePartSizeIsMultipartAndReadsAcrossParts() {
        int size = (int) partSize() + 100 * 1024;
        byte[] data = bytes(size, 4);
        List<ByteBuffer> chunks = new ArrayList<>();
        for (int off = 0; off < size; off += 1 << 20) {
            chunks.add(ByteBuffer.wrap(data, off, Math.min(1 << 20, size - off)));
        }
        ObjectMeta m = await(store().put(base + "big", Flux.fromIterable(chunks)));
        assertThat(m.size()).isEqualTo(size);
        long boundary = partSize();
        try (Buffer r = await(store().read(base + "big", boundary - 10, 20))) {
            byte[] expect = java.util.Arrays.copyOfRange(data, (int) boundary - 10, (int) boundary + 10);
            assertThat(r.toByteArray()).isEqualTo(expect);
        }
        assertThat(await(store().head(base + "big")).size()).isEqualTo(size);
    }

    @Test
    void streamingCreateIfAbsentLosesOnAnExistingObject() {
        await(store().put(base + "sc", bytes(10, 1)));
        int size = (int) partSize() + 1024;
        byte[] data = bytes(size, 5);
        assertThatThrownBy(() -> await(store().putIfAbsent(base + "sc",
                Flux.just(ByteBuffer.wrap(data, 0, size / 2), ByteBuffer.wrap(data, size / 2, size - size / 2)))))
                .isInstanceOf(ObjectAlreadyExistsException.class);
        assertThat(readAll(base + "sc")).isEqualTo(bytes(10, 1));
    }

    @Test
    void listByPrefixIsCompleteAndOrderedWhenTheStoreSaysSo() {
        List<String> keys = List.of("a/1", "a/2", "a/b/3", "a/b/4", "c", "ab");
        for (String k : keys) {
            await(store().put(base + k, bytes(3, k.hashCode())));
        }
        List<String> all = await(store().list(base).map(ObjectMeta::path).collectList());
        assertThat(all).containsExactlyInAnyOrderElementsOf(keys.stream().map(k -> base + k).toList());
        if (store().traits().listIsLexicallyOrdered()) {
            assertThat(all).isSorted();
        }
        List<String> underA = await(store().list(base + "a/").map(ObjectMeta::path).collectList());
        assertThat(underA).containsExactlyInAnyOrder(base + "a/1", base + "a/2", base + "a/b/3", base + "a/b/4");
        // A plain string prefix, not only directories.
        List<String> aStar = await(store().list(base + "a").map(ObjectMeta::path).collectList());
        assertThat(aStar).hasSize(5);
    }

    @Test
    void listWithDelimiterRollsUpPrefixes() {
        for (String k : List.of("d/x", "d/y/1", "d/y/2", "d/z/3", "e")) {
            await(store().put(base + k, bytes(1, 1)));
        }
        ListPage top = await(store().listWithDelimiter(base));
        assertThat(top.objects()).extracting(ObjectMeta::path).containsExactly(base + "e");
        assertThat(top.commonPrefixes()).containsExactly(base + "d/");
        ListPage d = await(store().listWithDelimiter(base + "d/"));
        assertThat(d.objects()).extracting(ObjectMeta::path).containsExactly(base + "d/x");
        assertThat(d.commonPrefixes()).containsExactly(base + "d/y/", base + "d/z/");
    }

    @Test
    void listPaginates() {
        for (int i = 0; i < 7; i++) {
            await(store().put(base + "p/" + i, bytes(1, i)));
        }
        StoreCounters c = store().counters();
        var before = c.snapshot();
        List<ListPage> pages = await(store().listPages(base + "p/", null, 3).collectList());
        assertThat(pages).hasSize(3);
        assertThat(pages.get(0).objects()).hasSize(3);
        assertThat(pages.get(2).isLast()).isTrue();
        assertThat(pages.stream().flatMap(p -> p.objects().stream()).map(ObjectMeta::path).distinct().count()).isEqualTo(7);
        assertThat(c.snapshot().minus(before).requests(OpClass.LIST)).isEqualTo(3);
    }

    @Test
    void deleteOneAndManyAndMissing() {
        for (int i = 0; i < 5; i++) {
            await(store().put(base + "del/" + i, bytes(2, i)));
        }
        await(store().delete(base + "del/0"));
        await(store().delete(base + "del/0")); // missing: still fine
        await(store().deleteAll(List.of(base + "del/1", base + "del/2", base + "del/3")));
        assertThat(await(store().list(base + "del/").map(ObjectMeta::path).collectList())).containsExactly(base + "del/4");
    }

    @Test
    void copyDuplicatesAnObject() {
        await(store().put(base + "src", bytes(500, 9)));
        ObjectMeta m = await(store().copy(base + "src", base + "dst"));
        assertThat(m.size()).isEqualTo(500);
        assertThat(readAll(base + "dst")).isEqualTo(bytes(500, 9));
        assertThatThrownBy(() -> await(store().copy(base + "missing", base + "dst2")))
                .isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void readRangesKeepsOrderAndCountsOneRequestEach() {
        byte[] data = bytes(10_000, 11);
        await(store().put(base + "rr", data));
        var before = store().counters().snapshot();
        List<ByteRange> ranges = List.of(ByteRange.of(9000, 100), ByteRange.of(0, 10), ByteRange.of(5000, 1000));
        List<byte[]> got = await(store().readRanges(base + "rr", ranges).map(b -> {
            try (b) {
                return b.toByteArray();
            }
        }).collectList());
        for (int i = 0; i < ranges.size(); i++) {
            ByteRange r = ranges.get(i);
            assertThat(got.get(i)).isEqualTo(java.util.Arrays.copyOfRange(data, (int) r.offset(), (int) r.end()));
        }
        var d = store().counters().snapshot().minus(before);
        assertThat(d.requests(OpClass.READ)).isEqualTo(3);
        assertThat(d.bytes(OpClass.READ)).isEqualTo(1110);
    }

    @Test
    void cancellingReadsLeavesNoMemoryBehind() {
        await(store().put(base + "c", bytes(1 << 20, 12)));
        for (int i = 0; i < 20; i++) {
            StepVerifier.create(store().read(base + "c", 0, 1 << 20).subscribeOn(Schedulers.parallel()))
                    .thenCancel()
                    .verify(T);
        }
        // Reads cancelled at varying points while in flight.
        for (int i = 0; i < 20; i++) {
            io.javelin.testing.CancelAfter.run(store().read(base + "c", 0, 1 << 20).subscribeOn(Schedulers.parallel()),
                    Duration.ofMillis(i % 5), Buffer::release);
        }
        // LeakCheckExtension fails the test if any read buffer's arena is still open.
    }

    /** Wrappers may release a handed-over buffer just after the error or cancel reaches the caller. */
    private static void assertReleasedSoon(Buffer b) {
        long deadline = System.nanoTime() + T.toNanos();
        while (!b.isReleased() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(b.isReleased()).as("the store released the buffer it was handed").isTrue();
    }

    /** readInto fills the caller's slice in place and owns it: emitted when full, released on every failure. */
    @Test
    void readIntoFillsASliceAndReleasesItOnFailureAndCancel() {
        byte[] data = bytes(300_000, 21);
        await(store().put(base + "ri", data));
        try (Buffer parent = Buffer.allocate(200_000, "read-into-test")) {
            Buffer got = await(store().readInto(base + "ri", 50_000, parent.slice(100_000, 100_000)));
            try (got) {
                assertThat(got.toByteArray()).isEqualTo(java.util.Arrays.copyOfRange(data, 50_000, 150_000));
            }
            assertThat(java.util.Arrays.copyOfRange(parent.toByteArray(), 100_000, 200_000))
                    .isEqualTo(java.util.Arrays.copyOfRange(data, 50_000, 150_000));

            Buffer pastEnd = parent.slice(0, 100_000);
            assertThatThrownBy(() -> await(store().readInto(base + "ri", 250_000, pastEnd)))
                    .isInstanceOf(InvalidRangeException.class);
            assertReleasedSoon(pastEnd);

            Buffer missing = parent.slice(0, 10);
            assertThatThrownBy(() -> await(store().readInto(base + "nope", 0, missing)))
                    .isInstanceOf(ObjectNotFoundException.class);
            assertReleasedSoon(missing);

            for (int i = 0; i < Integer.getInteger("readIntoCancels", 20); i++) {
                Buffer dst = parent.slice(0, 100_000);
                // subscribed at once (ownership passes on subscription), cancelled at varying points in flight
                io.javelin.testing.CancelAfter.run(store().readInto(base + "ri", 0, dst), Duration.ofMillis(i % 5), Buffer::release);
                assertReleasedSoon(dst);
            }
            assertThat(parent.refCount()).as(() -> "live handles: " + Buffer.liveTraces().stream()
                    .map(t -> t.getMessage() + " " + java.util.Arrays.toString(java.util.Arrays.copyOf(t.getStackTrace(), 12)))
                    .toList()).isEqualTo(1);
        }
    }

    @Test
    void badPathsAreTypedErrors() {
        for (String bad : List.of("../escape", "a/../../b", "/abs", "a//b", "dir/", "a\\b", "")) {
            assertThatThrownBy(() -> await(store().put(bad, bytes(1, 1))))
                    .as(bad).isInstanceOf(InvalidPathException.class);
            assertThatThrownBy(() -> await(store().read(bad, 0, 1)))
                    .as(bad).isInstanceOf(InvalidPathException.class);
        }
    }

    @Test
    void countersCountRequestsAndBytesPerClass() {
        var before = store().counters().snapshot();
        await(store().put(base + "k", bytes(100, 1)));
        await(store().head(base + "k"));
        try (Buffer b = await(store().read(base + "k", 10, 50))) {
            assertThat(b.size()).isEqualTo(50);
        }
        await(store().listPage(base, null, null, 10));
        await(store().delete(base + "k"));
        var d = store().counters().snapshot().minus(before);
        assertThat(d.requests(OpClass.WRITE)).isEqualTo(1);
        assertThat(d.bytes(OpClass.WRITE)).isEqualTo(100);
        assertThat(d.requests(OpClass.READ)).isEqualTo(2);
        assertThat(d.bytes(OpClass.READ)).isEqualTo(50);
        assertThat(d.requests(OpClass.LIST)).isEqualTo(1);
        assertThat(d.requests(OpClass.DELETE)).isEqualTo(1);
        assertThat(OffHeap.liveArenas()).isGreaterThanOrEqualTo(0);
    }
}
