package io.javelin.engine;

import io.javelin.encoding.io.ResourceOwner;
import io.javelin.tx.FragmentInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.util.TransferPair;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Random access by row address: per fragment one take from its data files, then rows put back in request order. */
final class Take {

    /** Fragments of one take read at the same time. */
    static final int FRAGMENT_CONCURRENCY = 8;

    private Take() {
    }

    static Mono<VectorSchemaRoot> take(Dataset ds, long[] addresses, List<String> columns, BufferAllocator allocator,
                                       boolean checkDeleted) {
        return Mono.defer(() -> {
            Projection projection = Projection.of(columns, ds.schema(), ds.uri(), ds.version());
            Map<Long, FragmentInfo> byId = new HashMap<>();
            for (FragmentInfo f : ds.fragments()) {
                // two fragments sharing an id (an old writer's bug): the address names the first, as in lance-core
                byId.putIfAbsent(f.id(), f);
            }
            // fragment id -> (request positions, offsets)
            Map<Long, List<Integer>> positions = new LinkedHashMap<>();
            for (int i = 0; i < addresses.length; i++) {
                long fid = addresses[i] >>> 32;
                long off = addresses[i] & 0xFFFF_FFFFL;
                FragmentInfo f = byId.get(fid);
                if (f == null || off >= f.physicalRows()) {
                    return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "No row at address " + addresses[i]
                            + " (fragment " + fid + ", offset " + off + ")"));
                }
                positions.computeIfAbsent(fid, k -> new ArrayList<>()).add(i);
            }
            List<String> read = projection.topLevel();
            io.javelin.objectstore.io.PageIoScheduler io = ds.io();
            if (addresses.length == 0) {
                Map<String, FieldVector> empty = new LinkedHashMap<>();
                for (String c : read) {
                    FieldVector v = BlobV2.scanField(ds.schema().findField(c)).createVector(allocator);
                    v.setValueCount(0);
                    empty.put(c, v);
                }
                return Mono.just(projection.apply(empty, List.of(), 0, allocator));
            }
            // fragments are taken concurrently (the scheduler bounds the I/O); parts carry their request positions.
            // Every part stays in the take's custody until assembly claims it, so a cancel closes the rest.
            Scan.InFlight custody = new Scan.InFlight();
            return Flux.fromIterable(positions.entrySet())
                    .flatMap(e -> {
                        FragmentInfo f = byId.get(e.getKey());
                        long[] offs = e.getValue().stream().mapToLong(i -> addresses[i] & 0xFFFF_FFFFL).toArray();
                        Mono<Void> check = !checkDeleted ? Mono.empty() : ds.deletions(f).flatMap(d -> {
                            for (long o : offs) {
                                if (d.contains((int) o)) {
                                    return Mono.error(new InvalidScanException(ds.uri(), ds.version(), "Row at address "
                                            + ((f.id() << 32) | o) + " is deleted"));
                                }
                            }
                            return Mono.empty();
                        });
                        return check.then(FragmentSource.open(ds, f, read, io))
                                .flatMap(src -> src.take(offs, read, allocator, custody))
                                .map(r -> Map.entry(e.getValue(), r));
                    }, FRAGMENT_CONCURRENCY)
                    .collectList()
                    .<VectorSchemaRoot>handle((parts, sink) -> {
                        boolean all = true;
                        for (var p : parts) {
                            all &= custody.claim(p.getValue());
                        }
                        if (!all) { // cancelled meanwhile: the custody closed the others
                            parts.forEach(p -> p.getValue().close());
                            return;
                        }
                        sink.next(assemble(parts, read, projection, addresses.length, allocator));
                    })
                    // an error waits for takes of other fragments still building batches in the caller's allocator
                    .onErrorResume(e -> custody.settle().then(Mono.error(e)))
                    .doFinally(sig -> custody.closeAll())
                    .contextWrite(ctx -> ctx.put(ResourceOwner.CONTEXT_KEY, custody));
        });
    }

    private static VectorSchemaRoot assemble(List<Map.Entry<List<Integer>, VectorSchemaRoot>> parts, List<String> read,
                                             Projection projection, int rows, BufferAllocator allocator) {
        Map<String, FieldVector> byName = new LinkedHashMap<>();
        try {
            if (parts.size() == 1) {
                for (FieldVector v : parts.get(0).getValue().getFieldVectors()) {
                    byName.put(v.getField().getName(), v);
                }
                return projection.apply(byName, List.of(), rows, allocator);
            }
            int[] partOf = new int[rows];
            int[] rowIn = new int[rows];
            for (int k = 0; k < parts.size(); k++) {
                List<Integer> at = parts.get(k).getKey();
                for (int j = 0; j < at.size(); j++) {
                    partOf[at.get(j)] = k;
                    rowIn[at.get(j)] = j;
                }
            }
            for (int c = 0; c < read.size(); c++) {
                FieldVector out = parts.get(0).getValue().getVector(c).getField().createVector(allocator);
                byName.put(read.get(c), out);
                TransferPair[] tps = new TransferPair[parts.size()];
                for (int k = 0; k < parts.size(); k++) {
                    tps[k] = parts.get(k).getValue().getVector(c).makeTransferPair(out);
                }
                // rows are filled in order: variable-width vectors must be written sequentially
                for (int i = 0; i < rows; i++) {
                    tps[partOf[i]].copyValueSafe(rowIn[i], i);
                }
                out.setValueCount(rows);
            }
            parts.forEach(p -> p.getValue().close());
            return projection.apply(byName, List.of(), rows, allocator);
        } catch (RuntimeException e) {
            parts.forEach(p -> p.getValue().close());
            throw e;
        }
    }
}
