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
@Command(name = "search", description = "k-nearest-neighbour search on a vector column (--vector), or BM25 full-text search "
        + "on a string column (--text); each uses the column's index when there is one.")
final class SearchCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    CliSupport.Common common;
    @Mixin
    DatasetCommands.At at;

    @Option(names = "--column", required = true, description = "Vector column.")
    String column;

    @Option(names = "--vector", description = "Query vector, comma separated floats.")
    String vector;

    @Option(names = "--text", description = "Full-text query (prints _score and _rowid per row).")
    String text;

    @Option(names = "--query-type", description = "Full-text query type: match (default) or phrase.")
    String queryType = "match";

    @Option(names = "--operator", description = "Full-text match operator: or (default) or and.")
    String operator = "or";

    @Option(names = "--slop", description = "Phrase slop (default 0).")
    int slop;

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

    private Integer fullText(PrintWriter out) throws Exception {
        if (format == CliSupport.Format.arrow) {
            throw new IllegalArgumentException("--format arrow is not supported by search");
        }
        io.javelin.engine.index.FtsQuery q = switch (queryType.toLowerCase(java.util.Locale.ROOT)) {
            case "match" -> io.javelin.engine.index.FtsQuery.match(column, text, io.javelin.engine.index.FtsQuery.Operator.parse(operator));
            case "phrase" -> io.javelin.engine.index.FtsQuery.phrase(column, text, slop);
            default -> throw new CommandLine.ParameterException(spec.commandLine(), "--query-type must be match or phrase, got " + queryType);
        };
        try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag);
             BufferAllocator alloc = new CliSupport.Allocator()) {
            List<String> cols = columns != null ? columns : ds.schema().getFields().stream().map(f -> f.getName()).toList();
            var search = ds.fullTextSearch(q).columns(cols).limit(k);
            if (filter != null) {
                search = search.filter(filter);
            }
            var batches = search.scan(alloc).collectList().block();
            if (batches.isEmpty() || batches.get(0).getRowCount() == 0) {
                batches.forEach(org.apache.arrow.vector.VectorSchemaRoot::close);
                if (format == CliSupport.Format.table) {
                    out.println("(0 rows)");
                }
                out.flush();
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

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if ((vector == null) == (text == null)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give exactly one of --vector or --text");
        }
        if (text != null) {
            return fullText(out);
        }
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
