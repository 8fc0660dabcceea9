package io.javelin.engine;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Turns the blob v2 descriptor columns of a fragment's batch into payloads when the scan asked for
 * {@link BlobHandling#ALL_BINARY} or {@link BlobHandling#LOGICAL} (found in the Reactor context). The
 * batch is claimed from the scan's custody while its blobs are read and the rebuilt batch handed back.
 */
final class BlobMaterialize {

    private BlobMaterialize() {
    }

    static BlobHandling mode(reactor.util.context.ContextView ctx) {
        return ctx.getOrDefault(BlobHandling.class, BlobHandling.DESCRIPTORS);
    }

    /** {@code addresses}: row address of each row of {@code root}. */
    static Mono<VectorSchemaRoot> apply(Dataset ds, VectorSchemaRoot root, List<String> columns, long[] addresses,
                                        BlobHandling mode, Scan.InFlight owner) {
        List<Integer> blobCols = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            if (BlobV2.isDescriptor(root.getVector(c).getField()) && BlobV2.isBlobV2(ds.schema().findField(columns.get(c)))) {
                blobCols.add(c);
            }
        }
        if (blobCols.isEmpty() || mode == BlobHandling.DESCRIPTORS) {
            return Mono.just(root);
        }
        if (owner != null && !owner.claim(root)) {
            return Mono.empty(); // the scan ended meanwhile and closed it
        }
        return Flux.fromIterable(blobCols).concatMap(c -> {
            var lf = ds.lanceSchema().field(columns.get(c));
            var kinds = (org.apache.arrow.vector.UInt1Vector) ((StructVector) root.getVector(c)).getChild("kind");
            return Flux.fromIterable(BlobReads.descriptors(ds, lf, addresses, root.getVector(c))).concatMap(m -> m).collectList()
                    .flatMap(handles -> BlobReads.readAll(mode == BlobHandling.ALL_BINARY ? handles : handles.stream()
                            .map(h -> !h.isNull() && (kinds.get(h.index()) & 0xFF) == BlobV2.EXTERNAL // references stay references
                                    ? new BlobHandle(h.index(), h.rowAddress(), null) : h).toList()).collectList().map(blobs -> {
                        ByteBuffer[] data = new ByteBuffer[root.getRowCount()];
                        for (Blob b : blobs) {
                            data[b.index()] = b.data();
                        }
                        return new Object[] {c, handles, data};
                    }));
        }).collectList().map(parts -> {
            List<FieldVector> vectors = new ArrayList<>(root.getFieldVectors());
            List<FieldVector> made = new ArrayList<>();
            try {
                for (Object[] part : parts) {
                    int c = (Integer) part[0];
                    @SuppressWarnings("unchecked")
                    List<BlobHandle> handles = (List<BlobHandle>) part[1];
                    ByteBuffer[] data = (ByteBuffer[]) part[2];
                    Field logical = ds.schema().findField(columns.get(c));
                    FieldVector v = mode == BlobHandling.ALL_BINARY
                            ? binary(logical, data, root.getRowCount(), root.getVector(c).getAllocator())
                            : logical(logical, (StructVector) root.getVector(c), handles, data, root.getRowCount(),
                                    root.getVector(c).getAllocator());
                    made.add(v);
                    vectors.set(c, v);
                }
            } catch (RuntimeException e) {
                made.forEach(FieldVector::close);
                throw e;
            }
            for (Object[] part : parts) {
                root.getVector((Integer) part[0]).close();
            }
            VectorSchemaRoot out = Batches.root(vectors, root.getRowCount());
            if (owner != null) {
                owner.adopt(out);
            }
            return out;
        }).doOnError(e -> root.close()).doOnCancel(root::close);
    }

    private static FieldVector binary(Field logical, ByteBuffer[] data, int n, BufferAllocator alloc) {
        LargeVarBinaryVector v = new LargeVarBinaryVector(new Field(logical.getName(),
                FieldType.nullable(ArrowType.LargeBinary.INSTANCE), null), alloc);
        v.allocateNew(n);
        for (int i = 0; i < n; i++) {
            if (data[i] == null) {
                v.setNull(i);
            } else {
                byte[] b = new byte[data[i].remaining()];
                data[i].duplicate().get(b);
                v.setSafe(i, b);
            }
        }
        v.setValueCount(n);
        return v;
    }

    /** Payloads in {@code data}; external objects (and slices) stay references. */
    private static FieldVector logical(Field logical, StructVector desc, List<BlobHandle> handles, ByteBuffer[] data, int n,
                                       BufferAllocator alloc) {
        StructVector out = (StructVector) logical.createVector(alloc);
        out.allocateNew();
        LargeVarBinaryVector d = (LargeVarBinaryVector) out.getChild("data");
        VarCharVector u = (VarCharVector) out.getChild("uri");
        UInt8Vector pos = out.getChild("position") instanceof UInt8Vector p ? p : null;
        UInt8Vector size = out.getChild("size") instanceof UInt8Vector s ? s : null;
        var kind = (org.apache.arrow.vector.UInt1Vector) desc.getChild("kind");
        var dpos = (UInt8Vector) desc.getChild("position");
        var dsize = (UInt8Vector) desc.getChild("size");
        var duri = (VarCharVector) desc.getChild("blob_uri");
        for (int i = 0; i < n; i++) {
            d.setNull(i);
            u.setNull(i);
            if (pos != null) {
                pos.setNull(i);
                size.setNull(i);
            }
            if (desc.isNull(i)) {
                out.setNull(i);
                continue;
            }
            out.setIndexDefined(i);
            if ((kind.get(i) & 0xFF) == BlobV2.EXTERNAL) {
                u.setSafe(i, duri.get(i));
                boolean slice = dpos.get(i) != 0 || dsize.get(i) != 0;
                if (slice) {
                    if (pos == null) {
                        throw new CorruptBlobException(handles.get(i).location(), -1, "External blob slice "
                                + new String(duri.get(i), StandardCharsets.UTF_8) + " in a column without position/size");
                    }
                    pos.setSafe(i, dpos.get(i));
                    size.setSafe(i, dsize.get(i));
                }
            } else {
                byte[] b = new byte[data[i].remaining()];
                data[i].duplicate().get(b);
                d.setSafe(i, b);
            }
        }
        for (FieldVector c : out.getChildrenFromFields()) {
            c.setValueCount(n);
        }
        out.setValueCount(n);
        return out;
    }
}
