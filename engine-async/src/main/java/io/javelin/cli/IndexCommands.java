package io.javelin.cli;

import io.javelin.engine.Dataset;
import io.javelin.engine.index.IndexInfo;
import io.javelin.engine.index.IndexKind;
import io.javelin.engine.index.IndexParams;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code javelin index create|list URI ...}. */
@Command(name = "index", description = "Create, list or drop indexes (BTREE, BITMAP, LABEL_LIST, INVERTED, IVF_FLAT, IVF_PQ, IVF_SQ, IVF_HNSW_*).",
        subcommands = {IndexCommands.Create.class, IndexCommands.ListIndexes.class, IndexCommands.Drop.class, IndexCommands.Optimize.class})
final class IndexCommands implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getOut());
        return CliSupport.USAGE;
    }

    @Command(name = "create", description = "Build an index on a column and commit it as a new version.")
    static final class Create implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;

        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;

        @Option(names = {"-c", "--column"}, required = true, description = "Column to index.")
        String column;

        @Option(names = {"-t", "--type"}, required = true, description = "BTREE, BITMAP, LABEL_LIST, INVERTED, IVF_FLAT, IVF_PQ, IVF_SQ, "
                + "IVF_HNSW_FLAT or IVF_HNSW_SQ.")
        String type;

        @Option(names = "--name", description = "Index name (default COLUMN_idx).")
        String name;

        @Option(names = "--replace", description = "Replace an index of the same name.")
        boolean replace;

        @Option(names = "--num-partitions", description = "IVF partitions (default rows / target partition size).")
        int partitions;

        @Option(names = "--num-sub-vectors", description = "PQ sub-vectors (default 16 when it divides the dimension).")
        int subVectors;

        @Option(names = "--num-bits", description = "PQ bits per code (default 8).")
        int bits;

        @Option(names = "--metric", description = "l2 (default), cosine or dot.")
        String metric;

        @Option(names = "--max-iters", description = "k-means iterations (default 50).")
        int maxIters;

        @Option(names = "--sample-rate", description = "Training rows per centroid (default 256).")
        int sampleRate;

        @Option(names = "--m", description = "HNSW edges per node (default 20).")
        int m;

        @Option(names = "--ef-construction", description = "HNSW construction beam (default 150).")
        int efConstruction;

        @Option(names = "--tokenizer", description = "INVERTED: simple (default), whitespace, raw or ngram.")
        String tokenizer = "simple";

        @Option(names = "--language", description = "INVERTED: language of --stem and --remove-stop-words (default English).")
        String language = "English";

        @Option(names = "--stem", description = "INVERTED: Snowball-stem tokens (off unless given).")
        boolean stem;

        @Option(names = "--remove-stop-words", description = "INVERTED: drop the language's stop words (off unless given).")
        boolean removeStopWords;

        @Option(names = "--ascii-folding", description = "INVERTED: fold accented characters to ASCII (off unless given).")
        boolean asciiFolding;

        @Option(names = "--lower-case", arity = "1", description = "INVERTED: lower-case tokens, true (default) or false.")
        boolean lowerCase = true;

        @Option(names = "--with-position", description = "INVERTED: store positions (needed by phrase queries).")
        boolean withPosition;

        @Option(names = "--max-token-length", description = "INVERTED: drop tokens of this many bytes or more (default 40; 0 = no limit).")
        Integer maxTokenLength;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            IndexKind kind = IndexKind.parse(type);
            IndexParams p = IndexParams.defaults().withName(name).withReplace(replace).withNumPartitions(partitions)
                    .withNumSubVectors(subVectors).withNumBits(bits).withMetric(metric).withMaxIters(maxIters)
                    .withSampleRate(sampleRate).withHnsw(m, efConstruction);
            if (kind == IndexKind.INVERTED) {
                Integer maxLen = maxTokenLength == null ? Integer.valueOf(40) : maxTokenLength == 0 ? null : maxTokenLength;
                p = p.withFts(new io.javelin.index.fts.FtsParams(tokenizer, language, withPosition, maxLen, lowerCase, stem,
                        removeStopWords, null, asciiFolding, 3, 3, false));
            }
            long t0 = System.nanoTime();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null);
                 Dataset next = ds.createIndex(List.of(column), kind, p).block()) {
                IndexInfo created = next.listIndexes().stream()
                        .filter(i -> i.name().equals(name != null ? name : column + "_idx")).findFirst().orElseThrow();
                out.printf("created %s index %s on %s (uuid %s) in %.1f s; dataset version %d%n", created.indexType(), created.name(),
                        column, created.uuid(), (System.nanoTime() - t0) / 1e9, next.version());
            }
            out.flush();
            return CliSupport.OK;
        }
    }

    @Command(name = "list", description = "List the indexes of a version.")
    static final class ListIndexes implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;
        @Mixin
        DatasetCommands.At at;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag)) {
                List<List<String>> rows = new ArrayList<>();
                for (IndexInfo i : ds.listIndexes()) {
                    rows.add(List.of(i.name(), i.indexType(), String.join(",", i.columns()), i.uuid().toString(),
                            Long.toString(i.datasetVersion()), Integer.toString(i.indexVersion()), i.fragments().toString(),
                            i.readable() ? "yes" : "no"));
                }
                CliSupport.table(List.of("name", "type", "columns", "uuid", "built_at_version", "index_version", "fragments",
                        "readable"), rows, out);
                out.printf("(%d indexes)%n", rows.size());
            }
            out.flush();
            return CliSupport.OK;
        }
    }

    @Command(name = "drop", description = "Drop an index by name (new version; files stay until cleanup).")
    static final class Drop implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;

        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;

        @Parameters(index = "1", paramLabel = "NAME", description = "Index name.")
        String name;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null);
                 Dataset next = ds.dropIndex(name).block()) {
                out.printf("dropped index %s; dataset version %d%n", name, next.version());
            }
            out.flush();
            return CliSupport.OK;
        }
    }

    @Command(name = "optimize", description = "Fold unindexed fragments into scalar indexes (one merged segment each; new version).")
    static final class Optimize implements Callable<Integer> {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Mixin
        CliSupport.Common common;

        @Parameters(index = "0", paramLabel = "URI", description = "Dataset URI.")
        String uri;

        @Option(names = "--name", description = "Index to optimize (repeatable; default: all scalar indexes).")
        List<String> names;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            try (Dataset ds = CliSupport.open(uri, common.storageOptions, null, null);
                 Dataset next = ds.optimizeIndexes(names).block()) {
                if (next.version() == ds.version()) {
                    out.printf("indexes already cover every fragment; dataset version %d%n", next.version());
                } else {
                    out.printf("optimized %s; dataset version %d%n", names == null ? "all scalar indexes" : String.join(",", names), next.version());
                }
            }
            out.flush();
            return CliSupport.OK;
        }
    }
}
