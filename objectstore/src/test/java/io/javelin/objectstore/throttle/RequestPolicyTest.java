package io.javelin.objectstore.throttle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.objectstore.CreateIfAbsent;
import io.javelin.objectstore.ObjectAlreadyExistsException;
import io.javelin.objectstore.ObjectNotFoundException;
import io.javelin.objectstore.ObjectStore;
import io.javelin.objectstore.ObjectStoreTimeoutException;
import io.javelin.objectstore.OpClass;
import io.javelin.objectstore.ResilientObjectStore;
import io.javelin.objectstore.ThrottledException;
import io.javelin.objectstore.TransientObjectStoreException;
import io.javelin.objectstore.fault.FaultInjectingObjectStore;
import io.javelin.objectstore.fault.FaultInjectingObjectStore.Fault;
import io.javelin.objectstore.inmemory.InMemoryObjectStore;
import io.javelin.objectstore.memory.Buffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * Retries, throttling and lost acknowledgements through the policy, with faults injected below it.
 * Nothing may report success that did not happen, or failure for a write that did happen without
 * saying so.
 */
class RequestPolicyTest {

    private InMemoryObjectStore raw;
    private FaultInjectingObjectStore faulty;
    private ObjectStore store;
    private StoreLimiters limiters;

    @BeforeEach
    void setUp() {
        raw = InMemoryObjectStore.createIsolated();
        faulty = new FaultInjectingObjectStore(raw);
        AimdConfig aimd = AimdConfig.DEFAULTS.withRetries(3, Duration.ofMillis(1), Duration.ofMillis(3));
        limiters = new StoreLimiters("test", aimd, Schedulers.parallel());
        RetryConfig retry = RetryConfig.DEFAULTS.withBackoff(Duration.ofMillis(1), Duration.ofMillis(5))
                .withRequestTimeout(Duration.ofMillis(300));
        store = new ResilientObjectStore(faulty, new RequestPolicy(limiters, retry, raw.counters(), Schedulers.parallel()));
    }

    private static <T> T await(Mono<T> m) {
        return m.subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30));
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aBurstOfSlowDownsIsAbsorbedAndCounted() {
        await(raw.put("k", b("v")));
        var before = raw.counters().snapshot();
        faulty.failNext(OpClass.READ, 2, Fault.THROTTLE);
        try (Buffer buf = await(store.readAll("k"))) {
            assertThat(buf.toByteArray()).isEqualTo(b("v"));
        }
        var d = raw.counters().snapshot().minus(before);
        assertThat(d.requests(OpClass.READ)).isEqualTo(3);
        assertThat(d.throttles(OpClass.READ)).isEqualTo(2);
        assertThat(d.retries(OpClass.READ)).isEqualTo(2);
        assertThat(limiters.get(OpClass.READ).rate()).as("halved once in this window").isEqualTo(1000);
        assertThat(limiters.get(OpClass.WRITE).rate()).as("classes are independent").isEqualTo(2000);
    }

    @Test
    void aLongOutageSurfacesTheTypedThrottleAfterTheRetryBudget() {
        faulty.failNext(OpClass.WRITE, 100, Fault.THROTTLE);
        var before = raw.counters().snapshot();
        assertThatThrownBy(() -> await(store.put("k", b("v")))).isInstanceOf(ThrottledException.class)
                .satisfies(e -> assertThat(((ThrottledException) e).errorCode()).isEqualTo("SlowDown"));
        // 3 AIMD retries + 3 transient retries after the first attempt.
        assertThat(raw.counters().snapshot().minus(before).requests(OpClass.WRITE)).isEqualTo(7);
        assertThatThrownBy(() -> await(raw.head("k"))).as("the write never happened").isInstanceOf(ObjectNotFoundException.class);
    }

    @Test
    void serverErrorsAreRetriedThenReported() {
        faulty.failNext(OpClass.LIST, 2, Fault.SERVER_ERROR);
        assertThat(await(store.listPage("", null, null, 10)).objects()).isEmpty();
        faulty.failNext(OpClass.LIST, 10, Fault.SERVER_ERROR);
        assertThatThrownBy(() -> await(store.listPage("", null, null, 10)))
                .isInstanceOf(TransientObjectStoreException.class);
    }

    @Test
    void hungRequestsTimeOutAndAreRetried() {
        await(raw.put("k", b("v")));
        faulty.failNext(OpClass.READ, 1, Fault.HANG);
        assertThat(await(store.head("k")).size()).isEqualTo(1);
        faulty.failNext(OpClass.READ, 10, Fault.HANG);
        assertThatThrownBy(() -> await(store.head("k"))).isInstanceOf(ObjectStoreTimeoutException.class);
    }

    @Test
    void truncatedBodiesAreRetriedAndNeverReturned() {
        await(raw.put("k", new byte[1000]));
        faulty.failNext(OpClass.READ, 2, Fault.TRUNCATE);
        try (Buffer buf = await(store.read("k", 0, 1000))) {
            assertThat(buf.size()).isEqualTo(1000);
        }
    }

    @Test
    void lostAcknowledgementOfACreateIsFlaggedAndResolvedAsOurs() {
        faulty.failNext(OpClass.WRITE, 1, Fault.LOST_RESPONSE);
        // The first attempt lands, its response is lost, the retry finds the object.
        assertThatThrownBy(() -> await(store.putIfAbsent("m", b("ours"))))
                .isInstanceOf(ObjectAlreadyExistsException.class)
                .satisfies(e -> assertThat(((ObjectAlreadyExistsException) e).afterAmbiguousAttempt()).isTrue());
        var outcome = await(CreateIfAbsent.resolve(store, "m", java.lang.foreign.MemorySegment.ofArray(b("ours")),
                new ObjectAlreadyExistsException("m", 412, null, null)));
        assertThat(outcome).isInstanceOf(CreateIfAbsent.Won.class);

        faulty.failNext(OpClass.WRITE, 1, Fault.LOST_RESPONSE);
        var viaHelper = await(CreateIfAbsent.create(store, "m2", b("mine")));
        assertThat(viaHelper).isInstanceOf(CreateIfAbsent.Won.class);
        assertThat(((CreateIfAbsent.Won) viaHelper).recoveredByReadBack()).isTrue();
    }

    @Test
    void aRealLossAfterAnAmbiguousAttemptIsStillALoss() {
        await(raw.putIfAbsent("m", b("theirs")));
        faulty.failNext(OpClass.WRITE, 1, Fault.SERVER_ERROR);
        var outcome = await(CreateIfAbsent.create(store, "m", b("ours")));
        assertThat(outcome).isInstanceOf(CreateIfAbsent.Lost.class);
        assertThat(((CreateIfAbsent.Lost) outcome).cause().afterAmbiguousAttempt()).isTrue();
    }

    @Test
    void racingCreatesUnderFaultsStillHaveExactlyOneWinner() {
        faulty.failNext(OpClass.WRITE, 50, Fault.THROTTLE);
        faulty.failNext(OpClass.WRITE, 20, Fault.LOST_RESPONSE);
        AtomicInteger won = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        AtomicInteger recovered = new AtomicInteger();
        Flux.range(0, 300)
                .flatMap(i -> CreateIfAbsent.create(store, "race", b("writer-" + i)), 32)
                .doOnNext(o -> {
                    if (o instanceof CreateIfAbsent.Won w) {
                        won.incrementAndGet();
                        if (w.recoveredByReadBack()) {
                            recovered.incrementAndGet();
                        }
                    } else {
                        lost.incrementAndGet();
                    }
                })
                .subscribeOn(Schedulers.parallel())
                .blockLast(Duration.ofSeconds(60));
        assertThat(won.get()).isEqualTo(1);
        assertThat(lost.get()).isEqualTo(299);
    }

    @Test
    void backoffIsScheduledOnVirtualTimeNotSlept() {
        VirtualTimeScheduler vts = VirtualTimeScheduler.create();
        StoreLimiters l = new StoreLimiters("vt", AimdConfig.DEFAULTS, vts);
        RetryConfig retry = RetryConfig.DEFAULTS.withBackoff(Duration.ofSeconds(1), Duration.ofSeconds(10));
        ObjectStore s = new ResilientObjectStore(faulty, new RequestPolicy(l, retry, raw.counters(), vts));
        faulty.failNext(OpClass.DELETE, 4, Fault.THROTTLE); // 3 AIMD retries (100-300 ms), then 1 transient (0.5-1 s)
        StepVerifier.withVirtualTime(() -> s.delete("x"), () -> vts, Long.MAX_VALUE)
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(250))
                .thenAwait(Duration.ofSeconds(2))
                .verifyComplete();
        assertThat(l.get(OpClass.DELETE).rate()).isEqualTo(1000);
    }
}
