package io.javelin.cli;

import io.javelin.engine.Javelin;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The README's main job: shows what this build of the engine can do. */
@Command(name = "demo", description = "Run the Javelin demo.")
final class DemoCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        out.println("Javelin " + Javelin.version() + " on Java " + Runtime.version());
        out.println("  object stores : " + String.join(", ", Javelin.stores()));
        out.println("  SIMD provider : " + Javelin.simdProvider());
        out.flush();
        return 0;
    }
}
