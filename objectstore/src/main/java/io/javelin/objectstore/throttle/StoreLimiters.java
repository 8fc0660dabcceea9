package io.javelin.objectstore.throttle;

import io.javelin.objectstore.OpClass;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The four limiters (read, write, list, delete) of one store+bucket. {@link #shared} returns one
 * instance per key and config for the whole process, so every dataset on a bucket shares its
 * budget, as Lance does.
 */
public final class StoreLimiters {

    private static final Map<String, StoreLimiters> SHARED = new ConcurrentHashMap<>();

    private final Map<OpClass, AimdLimiter> limiters = new EnumMap<>(OpClass.class);
    private final AimdConfig config;

    public StoreLimiters(String key, AimdConfig config, Scheduler clock) {
        this.config = config;
        for (OpClass op : OpClass.values()) {
            limiters.put(op, new AimdLimiter(key + "/" + op.label(), config, clock));
        }
    }

    /** Process-wide limiters for {@code key} (e.g. {@code s3$bucket}), keyed with the config too. */
    public static StoreLimiters shared(String key, AimdConfig config) {
        return SHARED.computeIfAbsent(key + "#" + config, k -> new StoreLimiters(key, config, Schedulers.parallel()));
    }

    public AimdLimiter get(OpClass op) {
        return limiters.get(op);
    }

    public AimdConfig config() {
        return config;
    }
}
