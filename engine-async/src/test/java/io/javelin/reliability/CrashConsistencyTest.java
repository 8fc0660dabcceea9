package io.javelin.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import io.javelin.engine.Dataset;
import io.javelin.tx.pb.DataFragment;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash consistency: a child JVM ({@link CrashChild}) commits appends to a local dataset in a loop
 * and is SIGKILLed ({@code destroyForcibly}) at a random point after its first acknowledged commit
 * of each life. After every kill: the dataset opens at a version no older than the last one the
 * child acknowledged (and at most one newer: a commit that landed before its ack was logged), its
 * contents are exactly the ids {@code 0..count-1} with {@code count = rows × version}, the last
 * acknowledged version opens with its logged count, and the next commit (made here) succeeds.
 * Files left by killed commits are counted as orphans and must not be referenced by any version; at the
 * end, cleanup removes exactly them (and the old versions) and the latest version still reads exactly.
 *
 * <p>CI: 8 kills. Long run: {@code -Djavelin.crash.kills=300}.
 */
class CrashConsistencyTest {

    static final int ROWS = 10;
    static final int KILLS = Integer.getInteger("javelin.crash.kills", 8);

    @TempDir
    Path tmp;

    private static List<String> childCommand(Path dir, Path ackLog) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (a.startsWith("--add-") || a.startsWith("--enable-native-access") || a.startsWith("--sun-misc")) {
                cmd.add(a);
            }
        }
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Xmx256m");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(CrashChild.class.getName());
        cmd.add(dir.toString());
        cmd.add(ackLog.toString());
        cmd.add(Integer.toString(ROWS));
        return cmd;
    }

    /** Complete lines only: a kill may tear the last write of the log (it was not acknowledged then). */
    private static long[] lastAck(Path ackLog) throws IOException {
        if (!Files.exists(ackLog)) {
            return null;
        }
        String s = Files.readString(ackLog, StandardCharsets.US_ASCII);
        int end = s.lastIndexOf('\n');
        if (end < 0) {
            return null;
        }
        String[] lines = s.substring(0, end).split("\n");
        String[] p = lines[lines.length - 1].split(" ");
        return new long[] {Long.parseLong(p[0]), Long.parseLong(p[1])};
    }

    private static int ackLines(Path ackLog) throws IOException {
        return Files.exists(ackLog) ? (int) Files.readString(ackLog).chars().filter(c -> c == '\n').count() : 0;
    }

    @Test
    void killedWritersLeaveTheLastCommittedVersion() throws Exception {
        Path dir = tmp.resolve("ds.lance");
        Path ackLog = tmp.resolve("acks.log");
        Path childLog = tmp.resolve("child.log");
        String uri = dir.toUri().toString();
        Random rnd = new Random(7);
        int landedUnacked = 0;
        long t0 = System.nanoTime();
        try (BufferAllocator alloc = new RootAllocator()) {
            for (int kill = 0; kill < KILLS; kill++) {
                int before = ackLines(ackLog);
                Process p = new ProcessBuilder(childCommand(dir, ackLog)).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(childLog.toFile())).start();
                try {
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (ackLines(ackLog) == before) {
                        assertThat(p.isAlive()).as("child died by itself; log:\n%s", tail(childLog)).isTrue();
                        assertThat(System.nanoTime()).as("child made no commit within 60 s").isLessThan(deadline);
                        Thread.sleep(5);
                    }
                    Thread.sleep(rnd.nextInt(250));
                } finally {
                    p.destroyForcibly();
                    p.waitFor(30, TimeUnit.SECONDS);
                }
                long[] acked = lastAck(ackLog);
                assertThat(acked).isNotNull();
                try (Dataset ds = Dataset.open(uri).block()) {
                    long v = ds.version();
                    assertThat(v).as("version after kill %d", kill).isBetween(acked[0], acked[0] + 1);
                    landedUnacked += v > acked[0] ? 1 : 0;
                    checkContents(ds, alloc, ROWS * v);
                    try (Dataset old = Dataset.open(uri, java.util.Map.of(), acked[0]).block()) {
                        assertThat(old.count().block()).isEqualTo(acked[1]);
                    }
                }
                // the next commit succeeds (and is logged, so the next child continues the same sequence)
                long[] next = CrashChild.commitOnce(uri, dir, alloc, ROWS);
                try (FileChannel log = FileChannel.open(ackLog, StandardOpenOption.WRITE)) {
                    String s = Files.readString(ackLog, StandardCharsets.US_ASCII);
                    log.truncate(s.lastIndexOf('\n') + 1); // drop a line torn by the kill
                    log.position(log.size());
                    CrashChild.ack(log, next);
                }
                try (Dataset ds = Dataset.open(uri).block()) {
                    assertThat(ds.version()).isEqualTo(next[0]);
                    checkContents(ds, alloc, next[1]);
                }
            }
            long ms = (System.nanoTime() - t0) / 1_000_000;
            int orphans = orphans(dir, uri);
            try (Dataset ds = Dataset.open(uri).block()) {
                System.out.printf("[crash] %d kills survived in %d ms; final version %d, %d rows; %d commits landed "
                        + "before their ack was logged; %d orphaned data files (unreferenced)%n", KILLS, ms, ds.version(),
                        ds.count().block(), landedUnacked, orphans);
            }
            // the orphans are left for cleanup: it removes them (and the old versions), the contents stay exact
            try (Dataset ds = Dataset.open(uri).block()) {
                long latest = ds.version();
                int tempFiles = tempFiles(dir);
                int allTempFiles = allTempFiles(dir); // killed manifest/txn/deletion writes leave some outside data/
                var stats = ds.cleanupOldVersions(java.time.Instant.now().plusSeconds(1), true).block();
                assertThat(stats.dataFilesRemoved()).as("orphaned data files removed").isEqualTo(orphans - tempFiles);
                assertThat(stats.temporaryFilesRemoved()).as("temporary files of killed writes removed").isEqualTo(allTempFiles);
                assertThat(allTempFiles(dir)).as("temporary files left after cleanup").isZero();
                try (Dataset after = Dataset.open(uri).block()) {
                    assertThat(after.version()).isEqualTo(latest);
                    checkContents(after, alloc, ROWS * latest);
                    Set<String> present = new HashSet<>();
                    try (Stream<Path> files = Files.list(dir.resolve("data"))) {
                        files.forEach(f -> present.add(f.getFileName().toString()));
                    }
                    Set<String> referenced = new HashSet<>();
                    after.fragments().forEach(f -> f.fragment().getFilesList().forEach(df -> referenced.add(df.getPath())));
                    assertThat(present).as("after cleanup: exactly the latest version's data files").isEqualTo(referenced);
                }
                System.out.printf("[crash] cleanup removed %d old versions, %d orphaned data files and %d temporary files of"
                        + " killed writes%n", stats.oldVersions(), stats.dataFilesRemoved(), stats.temporaryFilesRemoved());
            }
        }
    }

    /** Exactly the ids 0..count-1, each once. */
    private static void checkContents(Dataset ds, BufferAllocator alloc, long count) {
        assertThat(ds.count().block()).isEqualTo(count);
        Set<Long> seen = new HashSet<>();
        ds.scanner().columns("id").scan(alloc).doOnNext(b -> {
            try (b) {
                BigIntVector id = (BigIntVector) b.getVector("id");
                for (int i = 0; i < b.getRowCount(); i++) {
                    assertThat(seen.add(id.get(i))).as("id %d once", id.get(i)).isTrue();
                }
            }
        }).blockLast();
        assertThat(seen).hasSize((int) count);
        assertThat(seen.stream().mapToLong(Long::longValue).max().orElse(-1)).isEqualTo(count - 1);
    }

    /** Temporary files of local writes interrupted by a kill (never listed by the store; cleanup sweeps them separately). */
    private static int tempFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir.resolve("data"))) {
            return (int) s.filter(f -> f.getFileName().toString().startsWith(".javelin-tmp-")).count();
        }
    }

    /** Temporary files of killed writes anywhere in the dataset. */
    private static int allTempFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return (int) s.filter(f -> f.getFileName().toString().startsWith(".javelin-tmp-")).count();
        }
    }

    /** Data files no version references (temporary files of killed writes included); asserts every referenced file exists. */
    private static int orphans(Path dir, String uri) throws IOException {
        Set<String> referenced = new HashSet<>();
        try (Dataset latest = Dataset.open(uri).block()) {
            for (long v = 1; v <= latest.version(); v++) {
                try (Dataset ds = Dataset.open(uri, java.util.Map.of(), v).block()) {
                    for (var f : ds.fragments()) {
                        DataFragment fr = f.fragment();
                        fr.getFilesList().forEach(df -> referenced.add(df.getPath()));
                    }
                }
            }
        }
        Set<String> present = new HashSet<>();
        try (Stream<Path> s = Files.list(dir.resolve("data"))) {
            s.forEach(p -> present.add(p.getFileName().toString()));
        }
        assertThat(present).as("every referenced data file exists").containsAll(referenced);
        present.removeAll(referenced);
        return present.size();
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log);
            return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }
}
