package io.javelin.testing;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.scheduler.Schedulers;

/**
 * Subscribes, cancels after a delay, and hands every element it ever receives to {@code release},
 * even one that races with the cancel (operators such as take(Duration) would drop it on the floor,
 * hiding whether the publisher under test cleans up).
 */
public final class CancelAfter {

    private CancelAfter() {
    }

    public static <T> void run(Publisher<T> source, Duration delay, Consumer<T> release) {
        CountDownLatch subscribed = new CountDownLatch(1);
        BaseSubscriber<T> sub = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                subscribed.countDown();
                s.request(Long.MAX_VALUE);
            }

            @Override
            protected void hookOnNext(T value) {
                release.accept(value);
            }

            @Override
            protected void hookOnError(Throwable t) {
                // cancellation races may surface as errors; nothing to do
            }
        };
        source.subscribe(sub);
        try {
            subscribed.await(10, TimeUnit.SECONDS);
            if (delay.isZero()) {
                sub.dispose();
            } else {
                Schedulers.parallel().schedule(sub::dispose, delay.toNanos(), TimeUnit.NANOSECONDS);
                Thread.sleep(delay.toMillis() + 1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
