package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.engine.index.NearestQuery;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.arrow.memory.BufferAllocator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code javelin search URI --column C --vector "0.1,0.2,..." --k 10}: k nearest neighbours with {@code _distance}. */
@Command(name = "search", description = "k-nearest-neighbour search on a vector column (uses its index when there is one).")
final class SearchCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    CliSupport.Common common;
    @Mixin
    DatasetCommands.At at;

    @Option(names = "--column", required = true, description = "Vector column.")
    String column;

    @Option(names = "--vector", required = true, description = "Query vector, comma separated floats.")
    String vector;

    @Option(names = {"-k", "--k"}, description = "Neighbours to return (default ${DEFAULT-VALUE}).")
    int k = 10;

    @Option(names = "--nprobes", description = "IVF partitions to probe (default: Lance's minimum 1 / until k found).")
    Integer nprobes;

    @Option(names = "--refine-factor", description = "Re-rank k*factor candidates exactly.")
    int refine;

    @Option(names = "--ef", description = "HNSW search beam.")
    int ef;

    @Option(names = "--no-index", description = "Exact search over every row.")
    boolean noIndex;

    @Option(names = {"-f", "--filter"}, description = "SQL prefilter.")
    String filter;

    @Option(names = {"-c", "--columns"}, split = ",", description = "Columns to return (default all but the vector column).")
    List<String> columns;

    @Option(names = "--format", description = "table, csv or json (default ${DEFAULT-VALUE}).")
    CliSupport.Format format = CliSupport.Format.table;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        float[] q = parse(vector);
        if (format == CliSupport.Format.arrow) {
            throw new IllegalArgumentException("--format arrow is not supported by search");
        }
        try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag);
             BufferAllocator alloc = new CliSupport.Allocator()) {
            List<String> cols = columns != null ? columns
                    : ds.schema().getFields().stream().map(f -> f.getName()).filter(n -> !n.equals(column)).toList();
            NearestQuery nq = ds.scanner().columns(cols).filter(filter).nearest(column, q, k).refineFactor(refine).ef(ef).useIndex(!noIndex);
            if (nprobes != null) {
                nq = nq.nprobes(nprobes);
            }
            var batches = nq.scan(alloc).collectList().block();
            if (batches.isEmpty()) {
                out.println("(0 rows)");
                return CliSupport.OK;
            }
            var schema = batches.get(0).getSchema();
            long n = CliSupport.print(reactor.core.publisher.Flux.fromIterable(batches), schema, format, out);
            if (format == CliSupport.Format.table) {
                out.printf("(%d rows)%n", n);
            }
        }
        out.flush();
        return CliSupport.OK;
    }

    static float[] parse(String s) {
        String[] parts = s.trim().replace("[", "").replace("]", "").split("[,\\s]+");
        float[] v = new float[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                v[i] = Float.parseFloat(parts[i]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--vector: '" + parts[i] + "' is not a number");
            }
        }
        return v;
    }
}
