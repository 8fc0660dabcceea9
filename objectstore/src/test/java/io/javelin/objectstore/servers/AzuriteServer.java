package io.javelin.objectstore.servers;

import com.azure.storage.blob.BlobServiceClientBuilder;
import com.azure.storage.common.StorageSharedKeyCredential;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Azurite (npm) blob service on 127.0.0.1, in-memory, started once per test JVM. Installed with
 * npm into {@code <repo>/.tools/azurite} (git-ignored) the first time, under a file lock so
 * concurrent builds install it once.
 */
public final class AzuriteServer {

    public static final String ACCOUNT = "devstoreaccount1";
    public static final String KEY =
            "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

    private static AzuriteServer instance;

    private final int port;

    private AzuriteServer(int port) {
        this.port = port;
    }

    public static synchronized AzuriteServer get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static Path install() throws IOException, InterruptedException {
        String version = System.getProperty("javelin.azurite.version", "3.37.0");
        Path tools = Path.of(System.getProperty("javelin.tools.dir", "../.tools")).toAbsolutePath().normalize();
        Path dir = tools.resolve("azurite");
        Path bin = dir.resolve("node_modules/.bin/azurite-blob");
        Files.createDirectories(dir);
        try (FileChannel lockFile = FileChannel.open(dir.resolve(".install.lock"), StandardOpenOption.CREATE,
                StandardOpenOption.WRITE); FileLock lock = lockFile.lock()) {
            if (Files.isExecutable(bin)) {
                return bin;
            }
            Path log = dir.resolve("npm-install.log");
            Process p = new ProcessBuilder("npm", "install", "--prefix", dir.toString(), "--no-audit", "--no-fund",
                    "--loglevel=error", "azurite@" + version)
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0 || !Files.isExecutable(bin)) {
                p.destroyForcibly();
                throw new IllegalStateException("npm install azurite@" + version + " failed (is node/npm installed?); log:\n"
                        + ChildProcesses.tail(log));
            }
            return bin;
        }
    }

    private static AzuriteServer start() {
        try {
            Path bin = install();
            int port = ChildProcesses.freePort();
            Path dir = ChildProcesses.workDir("azurite-" + port);
            Path log = dir.resolve("azurite.log");
            Process p = new ProcessBuilder(bin.toString(), "--blobHost", "127.0.0.1", "--blobPort", Integer.toString(port),
                    "--inMemoryPersistence", "--disableTelemetry", "--silent")
                    .directory(dir.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            ChildProcesses.stopOnExit("azurite", p);
            ChildProcesses.awaitPort("azurite", p, port, Duration.ofSeconds(60), log);
            return new AzuriteServer(port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start azurite", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted starting azurite", e);
        }
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port + "/" + ACCOUNT;
    }

    public void createContainer(String name) {
        var svc = new BlobServiceClientBuilder().endpoint(endpoint())
                .credential(new StorageSharedKeyCredential(ACCOUNT, KEY)).buildClient();
        var c = svc.getBlobContainerClient(name);
        if (!c.exists()) {
            c.create();
        }
    }

    public Map<String, String> options() {
        Map<String, String> o = new HashMap<>();
        o.put("azure_endpoint", endpoint());
        o.put("azure_storage_account_name", ACCOUNT);
        o.put("azure_storage_account_key", KEY);
        o.put("allow_http", "true");
        return o;
    }
}
