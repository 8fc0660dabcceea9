package io.javelin.cli;

import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.server.NamespaceServer;
import io.javelin.engine.server.ServerOptions;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code javelin serve --root URI [--port P] [--host H]}: the Lance REST namespace over a directory
 * namespace until interrupted (Ctrl-C / SIGTERM shut it down gracefully).
 */
@Command(name = "serve", description = "Serve a directory of Lance tables as a Lance REST namespace (lance-core's RestNamespace can connect).")
final class ServeCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Mixin
    CliSupport.Common common;

    @Option(names = "--root", required = true, description = "Namespace root: a directory or store URI.")
    String root;

    @Option(names = "--port", description = "Port (default ${DEFAULT-VALUE}; 0 picks a free one).")
    int port = 2333;

    @Option(names = "--host", description = "Address to listen on (default ${DEFAULT-VALUE}).")
    String host = "127.0.0.1";

    @Override
    public Integer call() throws Exception {
        DirectoryNamespace ns = DirectoryNamespace.open(root, common.storageOptions);
        NamespaceServer server = NamespaceServer.start(ns, ServerOptions.defaults().withHost(host).withPort(port)).block();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.shutdown().block();
            server.close();
            ns.close();
            stopped.countDown();
        }, "javelin-serve-shutdown"));
        spec.commandLine().getOut().println("javelin serve: namespace " + ns.root() + " at http://" + host + ":" + server.port()
                + " (health: /health, metrics: /metrics)");
        spec.commandLine().getOut().flush();
        stopped.await();
        return CliSupport.OK;
    }
}
