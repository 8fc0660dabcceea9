package io.javelin.cli;

import io.javelin.engine.BlobHandle;
import io.javelin.engine.Dataset;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import reactor.core.scheduler.Schedulers;

/**
 * {@code javelin blobs URI --column C --rows 0,5,17 [--out DIR]}: the payloads of a blob column (blob v2
 * or legacy) at row positions, streamed (memory bounded by the chunk size whatever the blob's size).
 */
@Command(name = "blobs", description = "Print 'row size sha256' of blobs at row positions, or write each payload "
        + "to DIR/row-<row>.bin with --out (a null blob prints 'row null -' and writes no file).")
final class BlobsCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;
    @Mixin
    CliSupport.Common common;
    @Mixin
    DatasetCommands.At at;

    @Option(names = "--column", required = true, paramLabel = "C", description = "The blob column.")
    String column;

    @Option(names = "--rows", required = true, split = ",", paramLabel = "N,N,...", description = "Row positions (0-based over live rows).")
    List<Long> rows;

    @Option(names = "--out", paramLabel = "DIR", description = "Directory to write the payloads into (created if missing).")
    Path out;

    @Override
    public Integer call() throws Exception {
        PrintWriter pw = spec.commandLine().getOut();
        long[] idx = rows.stream().mapToLong(Long::longValue).toArray();
        if (out != null) {
            Files.createDirectories(out);
        }
        try (Dataset ds = CliSupport.open(at.uri, common.storageOptions, at.version, at.tag)) {
            for (BlobHandle h : ds.takeBlobs(column, idx).collectList().block()) {
                long row = idx[h.index()];
                if (h.isNull()) {
                    pw.println(row + " null -");
                    continue;
                }
                MessageDigest md = MessageDigest.getInstance("SHA-256");
                Path target = out == null ? null : out.resolve("row-" + row + ".bin");
                Path tmp = target == null ? null : out.resolve(".row-" + row + ".bin.tmp");
                try (FileChannel ch = tmp == null ? null : FileChannel.open(tmp, StandardOpenOption.CREATE,
                        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                    // file writes block: they run on the bounded-elastic scheduler, never on the store's threads
                    h.stream().publishOn(Schedulers.boundedElastic(), 1).doOnNext(b -> {
                        md.update(b.duplicate());
                        if (ch != null) {
                            write(ch, b);
                        }
                    }).blockLast();
                }
                if (target != null) {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
                pw.println(row + " " + h.size() + " " + HexFormat.of().formatHex(md.digest())
                        + (target == null ? "" : " " + target));
            }
        }
        pw.flush();
        return 0;
    }

    private static void write(FileChannel ch, ByteBuffer b) {
        try {
            ByteBuffer d = b.duplicate();
            while (d.hasRemaining()) {
                ch.write(d);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
