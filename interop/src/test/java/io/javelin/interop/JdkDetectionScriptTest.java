package io.javelin.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher scripts' JDK detection: finds a JDK >= 22 by itself, or stops with a clear message. */
class JdkDetectionScriptTest {

    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private record Run(int exit, String out) {
    }

    private static Run detect(String javaHome, String candidates) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "source scripts/jdk.sh && javelin_find_jdk && echo \"FOUND $JAVA_HOME\"")
                .directory(ROOT.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", javaHome);
        if (candidates != null) {
            pb.environment().put("JAVELIN_JDK_CANDIDATES", candidates);
        }
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    @Test
    void keepsAJavaHomeThatIsNewEnough() throws Exception {
        String home = System.getProperty("java.home");
        Run run = detect(home, "");
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("FOUND " + home);
    }

    @Test
    void searchesKnownLocationsWhenJavaHomeIsTooOldOrMissing(@TempDir Path empty) throws Exception {
        String home = System.getProperty("java.home");
        Run run = detect(empty.toString(), empty + " " + home);
        assertThat(run.exit()).isZero();
        assertThat(run.out()).contains("FOUND " + home);
    }

    @Test
    void failsWithAClearMessageWhenNoJdkQualifies(@TempDir Path dir) throws Exception {
        Path fake = dir.resolve("jdk17");
        Files.createDirectories(fake.resolve("bin"));
        Path java = fake.resolve("bin/java");
        Files.writeString(java, "#!/bin/sh\necho '    java.specification.version = 17' >&2\n");
        java.toFile().setExecutable(true);
        Files.writeString(fake.resolve("bin/javac"), "#!/bin/sh\n");
        fake.resolve("bin/javac").toFile().setExecutable(true);
        Run run = detect(fake.toString(), fake.toString());
        assertThat(run.exit()).isNotZero();
        assertThat(run.out()).contains("no JDK >= 22 found").contains("JAVA_HOME");
    }
}
