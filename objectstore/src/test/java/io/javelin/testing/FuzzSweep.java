package io.javelin.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * The CI half of the fuzzing setup: a deterministic, seeded mutation sweep over the same harness a
 * Jazzer {@code @FuzzTest} drives. Jazzer's coverage-guided mode fuzzes one test per JVM and needs
 * tens of seconds of instrumentation, so CI replays the checked-in corpus through Jazzer's
 * regression mode and runs this sweep (thousands of structured mutants per decoder in seconds);
 * long coverage-guided runs use {@code JAZZER_FUZZ=1} (see docs/reliability.md).
 *
 * <p>Every mutant runs on a worker thread with a wall-clock limit (a hang is a finding) and an
 * allocation budget measured with the thread's allocated-bytes counter (an allocation driven by an
 * untrusted length field is a finding even when the heap happens to be large enough). A failing
 * input is written to {@code target/fuzz-findings/} so it can be minimized into a regression seed.
 *
 * <p>Mutants per seed: {@code -Djavelin.fuzz.mutants=N} (default per call site).
 */
public final class FuzzSweep {

    /** One decoder attempt; throws only if the contract is broken (the harness catches typed errors). */
    @FunctionalInterface
    public interface Harness {
        void run(byte[] input) throws Exception;
    }

    public record Result(String name, long inputs, long succeeded, long rejected, long maxAllocated) {
        @Override
        public String toString() {
            return name + ": " + inputs + " inputs, " + succeeded + " decoded, " + rejected + " rejected typed, max "
                    + (maxAllocated >> 10) + " KiB allocated by one input";
        }
    }

    /** Thrown by harnesses to count an input as rejected with a typed error (the expected outcome). */
    public static final class Rejected extends RuntimeException {
        public Rejected(Throwable cause) {
            super(cause.getClass().getSimpleName() + ": " + cause.getMessage(), cause, false, false);
        }
    }

    private static final long[] INTERESTING = {0, 1, -1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFF_FFFFL,
            0x8000_0000L, 0xFFFF_FFFFL, Long.MAX_VALUE, Long.MIN_VALUE, 16, 64, 4096, 1 << 20};

    private final String name;
    private final List<byte[]> seeds;
    private Duration perInput = Duration.ofSeconds(10);
    private long allocationBudget = 256L << 20;
    private long allocationPerInputByte = 64;

    private FuzzSweep(String name, List<byte[]> seeds) {
        if (seeds.isEmpty()) {
            throw new IllegalArgumentException("no seeds for " + name);
        }
        this.name = name;
        this.seeds = seeds;
    }

    public static FuzzSweep of(String name, List<byte[]> seeds) {
        return new FuzzSweep(name, seeds);
    }

    public FuzzSweep timeout(Duration d) {
        this.perInput = d;
        return this;
    }

    /** Allowed heap allocation per input: {@code fixed + perByte * input.length}. */
    public FuzzSweep allocation(long fixed, long perByte) {
        this.allocationBudget = fixed;
        this.allocationPerInputByte = perByte;
        return this;
    }

    /** The Jazzer corpus of {@code testClass#method}: {@code <package>/<Class>Inputs/<method>/*} on the test classpath. */
    public static List<byte[]> corpus(Class<?> testClass, String method) {
        URL url = testClass.getResource(testClass.getSimpleName() + "Inputs/" + method);
        if (url == null) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(Paths.get(url.toURI()))) {
            List<Path> sorted = files.filter(Files::isRegularFile).sorted().toList();
            List<byte[]> out = new ArrayList<>();
            for (Path p : sorted) {
                out.add(Files.readAllBytes(p));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static byte[] resource(Class<?> anchor, String name) {
        try (InputStream in = anchor.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalArgumentException("missing test resource " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs every seed unmodified, then {@code mutantsPerSeed} mutants of each (default overridable by
     * {@code javelin.fuzz.mutants}), all derived from {@code randomSeed}.
     */
    public Result run(int mutantsPerSeed, long randomSeed, Harness harness) {
        int mutants = Integer.getInteger("javelin.fuzz.mutants", mutantsPerSeed);
        SplittableRandom rnd = new SplittableRandom(randomSeed);
        List<byte[]> inputs = new ArrayList<>(seeds);
        Counters c = new Counters();
        ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-sweep-" + name);
            t.setDaemon(true);
            return t;
        });
        try {
            for (byte[] seed : seeds) {
                attempt(worker, seed, harness, c);
            }
            for (int s = 0; s < seeds.size(); s++) {
                for (int i = 0; i < mutants; i++) {
                    byte[] m = mutate(seeds.get(s), seeds, rnd);
                    attempt(worker, m, harness, c);
                }
            }
        } finally {
            worker.shutdownNow();
        }
        Result r = new Result(name, c.inputs.get(), c.ok.get(), c.rejected.get(), c.maxAlloc.get());
        System.out.println("[fuzz-sweep] " + r);
        report(c);
        return r;
    }

    /** Every strict prefix (all of them for small seeds, a sample for big ones) must be rejected typed. */
    public Result truncations(int maxPerSeed, Harness harness) {
        Counters c = new Counters();
        ExecutorService worker = Executors.newSingleThreadExecutor();
        try {
            for (byte[] seed : seeds) {
                int step = Math.max(1, seed.length / maxPerSeed);
                for (int len = 0; len < seed.length; len += step) {
                    byte[] prefix = Arrays.copyOf(seed, len);
                    attempt(worker, prefix, in -> {
                        harness.run(in);
                        throw new AssertionError("a " + in.length + "-byte prefix of a " + seed.length
                                + "-byte seed decoded without error (silent partial result)");
                    }, c);
                }
            }
        } finally {
            worker.shutdownNow();
        }
        Result r = new Result(name + " (truncations)", c.inputs.get(), c.ok.get(), c.rejected.get(), c.maxAlloc.get());
        System.out.println("[fuzz-sweep] " + r);
        report(c);
        return r;
    }

    private static final class Counters {
        /** Distinct findings (by failure signature), reported together at the end of a sweep. */
        final java.util.Map<String, AssertionError> findings = new java.util.LinkedHashMap<>();
        final AtomicLong inputs = new AtomicLong();
        final AtomicLong ok = new AtomicLong();
        final AtomicLong rejected = new AtomicLong();
        final AtomicLong maxAlloc = new AtomicLong();
    }

    private void attempt(ExecutorService worker, byte[] input, Harness harness, Counters c) {
        try {
            attemptOnce(worker, input, harness, c);
        } catch (AssertionError e) {
            String sig = signature(e);
            c.findings.putIfAbsent(sig, e);
            if (e.getMessage() != null && e.getMessage().contains("no result within")) {
                throw e; // the worker is stuck: nothing more can run on it
            }
        }
    }

    private static String signature(Throwable e) {
        Throwable root = e.getCause() != null ? e.getCause() : e;
        StringBuilder sb = new StringBuilder(root.getClass().getName());
        for (StackTraceElement el : root.getStackTrace()) {
            if (el.getClassName().startsWith("io.javelin") && !el.getClassName().startsWith("io.javelin.testing")) {
                sb.append('@').append(el);
                break;
            }
        }
        if (root == e) {
            sb.append(e.getMessage() == null ? "" : e.getMessage().replaceAll("[0-9]+", "#").replaceAll("saved to .*", ""));
        }
        return sb.toString();
    }

    private static void report(Counters c) {
        if (c.findings.isEmpty()) {
            return;
        }
        AssertionError first = null;
        StringBuilder sb = new StringBuilder(c.findings.size() + " distinct finding(s):");
        for (AssertionError e : c.findings.values()) {
            sb.append("\n  - ").append(e.getMessage());
            first = first == null ? e : first;
        }
        AssertionError all = new AssertionError(sb.toString(), first.getCause());
        c.findings.values().forEach(all::addSuppressed);
        throw all;
    }

    private void attemptOnce(ExecutorService worker, byte[] input, Harness harness, Counters c) {
        c.inputs.incrementAndGet();
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Future<Long> f = worker.submit(() -> {
            long before = mx.getCurrentThreadAllocatedBytes();
            try {
                harness.run(input);
                c.ok.incrementAndGet();
            } catch (Rejected r) {
                c.rejected.incrementAndGet();
            }
            return mx.getCurrentThreadAllocatedBytes() - before;
        });
        long allocated;
        try {
            allocated = f.get(perInput.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw finding(input, "no result within " + perInput + " (hang or unbounded loop)", null);
        } catch (ExecutionException e) {
            throw finding(input, "contract broken: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        c.maxAlloc.accumulateAndGet(allocated, Math::max);
        long budget = allocationBudget + allocationPerInputByte * input.length;
        if (allocated > budget) {
            throw finding(input, "allocated " + allocated + " bytes for a " + input.length + "-byte input (budget "
                    + budget + ")", null);
        }
    }

    private AssertionError finding(byte[] input, String what, Throwable cause) {
        String hash;
        try {
            hash = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(input));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        Path out = Paths.get("target", "fuzz-findings", name + "-" + hash + ".bin");
        try {
            Files.createDirectories(out.getParent());
            Files.write(out, input);
        } catch (IOException e) {
            // best effort: the assertion below still names the problem
        }
        return new AssertionError(name + ": " + what + "; input saved to " + out.toAbsolutePath(), cause);
    }

    /** A structure-blind but length-field-aware mutation: a few stacked edits of one seed. */
    static byte[] mutate(byte[] seed, List<byte[]> all, SplittableRandom rnd) {
        byte[] b = seed.clone();
        int edits = 1 + rnd.nextInt(rnd.nextInt(4) == 0 ? 8 : 2);
        for (int e = 0; e < edits; e++) {
            if (b.length == 0) {
                b = new byte[] {(byte) rnd.nextInt(256)};
                continue;
            }
            // half the edits land in the last 512 bytes: footers and length fields live there
            int at = rnd.nextBoolean() ? rnd.nextInt(b.length) : Math.max(0, b.length - 1 - rnd.nextInt(Math.min(512, b.length)));
            switch (rnd.nextInt(9)) {
                case 0 -> b[at] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> b[at] = (byte) rnd.nextInt(256);
                case 2, 3 -> {
                    long v = INTERESTING[rnd.nextInt(INTERESTING.length)];
                    int width = new int[] {1, 2, 4, 8}[rnd.nextInt(4)];
                    for (int i = 0; i < width && at + i < b.length; i++) {
                        b[at + i] = (byte) (v >>> (8 * i));
                    }
                }
                case 4 -> b = Arrays.copyOf(b, rnd.nextInt(b.length + 1)); // truncate
                case 5 -> { // delete a chunk
                    int len = 1 + rnd.nextInt(Math.min(64, b.length - at));
                    byte[] n = new byte[b.length - len];
                    System.arraycopy(b, 0, n, 0, at);
                    System.arraycopy(b, at + len, n, at, b.length - at - len);
                    b = n;
                }
                case 6 -> { // duplicate a chunk in place
                    int len = 1 + rnd.nextInt(Math.min(64, b.length - at));
                    byte[] n = new byte[b.length + len];
                    System.arraycopy(b, 0, n, 0, at + len);
                    System.arraycopy(b, at, n, at + len, b.length - at);
                    b = n;
                }
                case 7 -> { // varint-ish: a protobuf length/tag byte pushed high
                    b[at] = (byte) (b[at] | 0x80);
                }
                default -> { // splice a chunk of another seed
                    byte[] o = all.get(rnd.nextInt(all.size()));
                    if (o.length > 0) {
                        int from = rnd.nextInt(o.length);
                        int len = Math.min(1 + rnd.nextInt(32), Math.min(o.length - from, b.length - at));
                        System.arraycopy(o, from, b, at, len);
                    }
                }
            }
        }
        return b;
    }
}
