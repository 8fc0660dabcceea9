package io.javelin.engine;

import io.javelin.tx.CommitConflictException;
import io.javelin.tx.commit.CommitEngine;
import io.javelin.tx.commit.CommitResult;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.transaction.OperationKind;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/** The dataset's {@link CommitEngine}, with commit meters ({@link EngineMetrics}) and DEBUG logging. */
final class MeteredCommits {

    private static final Logger LOG = LoggerFactory.getLogger(MeteredCommits.class);

    private final CommitEngine engine;
    private final String uri;

    /** Runs after each successful commit, before its result is handed on (auto-cleanup); never fails. */
    private final java.util.function.Function<CommitResult, Mono<Void>> afterCommit;

    MeteredCommits(CommitEngine engine, String uri) {
        this(engine, uri, r -> Mono.empty());
    }

    MeteredCommits(CommitEngine engine, String uri, java.util.function.Function<CommitResult, Mono<Void>> afterCommit) {
        this.engine = engine;
        this.uri = uri;
        this.afterCommit = afterCommit;
    }

    Mono<CommitResult> commit(Transaction txn) {
        return commit(txn, false);
    }

    /** {@code enableStableRowIds}: only when the commit creates the dataset (see {@link CommitEngine}). */
    Mono<CommitResult> commit(Transaction txn, boolean enableStableRowIds) {
        return Mono.defer(() -> {
            long started = System.nanoTime();
            String op = txn.getOperationCase() == Transaction.OperationCase.OPERATION_NOT_SET ? "unknown"
                    : OperationKind.of(txn).toString();
            return engine.commit(txn, enableStableRowIds)
                    .doOnSuccess(r -> {
                        MeterRegistry reg = EngineMetrics.registry();
                        timer(reg, op, "committed").record(Duration.ofNanos(System.nanoTime() - started));
                        ScanStats.count(reg, "javelin.commit.attempts", "commit attempts", null, r.attempts());
                        ScanStats.count(reg, "javelin.commit.retries", "commit attempts after the first", null, r.attempts() - 1);
                        ScanStats.count(reg, "javelin.commit.conflicts", "races for a version lost to another writer", null,
                                r.attempts() - 1);
                        LOG.debug("commit {} to {}: version {} after {} attempt(s), {} ms", op, uri, r.version(), r.attempts(),
                                (System.nanoTime() - started) / 1_000_000);
                    })
                    .doOnError(e -> {
                        MeterRegistry reg = EngineMetrics.registry();
                        timer(reg, op, "failed").record(Duration.ofNanos(System.nanoTime() - started));
                        if (e instanceof CommitConflictException) {
                            ScanStats.count(reg, "javelin.commit.conflicts", "races for a version lost to another writer", null, 1);
                        }
                        reg.counter("javelin.commit.failures", "error", e.getClass().getSimpleName()).increment();
                        LOG.debug("commit {} to {} failed after {} ms: {}", op, uri, (System.nanoTime() - started) / 1_000_000,
                                e.toString());
                    })
                    .flatMap(r -> afterCommit.apply(r).thenReturn(r));
        });
    }

    private static Timer timer(MeterRegistry reg, String op, String outcome) {
        return Timer.builder("javelin.commit.duration").description("commit wall time, including retries")
                .tag("operation", op).tag("outcome", outcome).register(reg);
    }
}
