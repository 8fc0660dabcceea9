package io.javelin.index.fts;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Encodes one in-memory partition as the files of a single-partition inverted index that
 * lance-core 7.0.0 reads: {@code part_0_tokens.lance} in the arrow token layout ({@code _token},
 * {@code _token_id}, sorted by token; token ids in order of first appearance),
 * {@code part_0_docs.lance}, {@code part_0_invert.lance} (v1 posting blocks, block maxima as upper
 * bounds so Lance's block-max WAND never prunes a true hit) and {@code metadata.lance}. Each batch
 * returned is the caller's to close.
 */
public final class InvertedIndexWriter {

    private static final Field POSTING_ITEM = new Field("item", FieldType.nullable(ArrowType.LargeBinary.INSTANCE), null);

    private InvertedIndexWriter() {
    }

    /** The four batches, keyed by file name. */
    public static Map<String, VectorSchemaRoot> encode(MemoryPartition p, FtsParams params, BufferAllocator alloc) {
        Map<String, VectorSchemaRoot> out = new java.util.LinkedHashMap<>();
        List<String> order = p.tokensInOrder();
        try {
            out.put(InvertedIndexFiles.tokens(0), tokens(order, alloc));
            out.put(InvertedIndexFiles.docs(0), docs(p, alloc));
            out.put(InvertedIndexFiles.invert(0), invert(p, order, params.withPosition(), alloc));
            out.put(InvertedIndexFiles.METADATA, metadata(params, alloc));
            return out;
        } catch (RuntimeException e) {
            out.values().forEach(VectorSchemaRoot::close);
            throw e;
        }
    }

    private static VectorSchemaRoot tokens(List<String> order, BufferAllocator alloc) {
        Schema s = new Schema(List.of(new Field(InvertedIndexFiles.TOKEN, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
                new Field(InvertedIndexFiles.TOKEN_ID, FieldType.notNullable(new ArrowType.Int(32, false)), null)));
        VectorSchemaRoot root = VectorSchemaRoot.create(s, alloc);
        List<Integer> byText = new ArrayList<>();
        for (int i = 0; i < order.size(); i++) {
            byText.add(i);
        }
        byText.sort((a, b) -> compareUtf8(order.get(a), order.get(b)));
        VarCharVector tok = (VarCharVector) root.getVector(0);
        UInt4Vector ids = (UInt4Vector) root.getVector(1);
        root.allocateNew();
        for (int i = 0; i < byText.size(); i++) {
            tok.setSafe(i, order.get(byText.get(i)).getBytes(StandardCharsets.UTF_8));
            ids.setSafe(i, byText.get(i));
        }
        root.setRowCount(order.size());
        return root;
    }

    static int compareUtf8(String a, String b) {
        return java.util.Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    private static VectorSchemaRoot docs(MemoryPartition p, BufferAllocator alloc) {
        Schema s = new Schema(List.of(new Field(InvertedIndexFiles.ROW_ID, FieldType.notNullable(new ArrowType.Int(64, false)), null),
                new Field(InvertedIndexFiles.NUM_TOKENS, FieldType.notNullable(new ArrowType.Int(32, false)), null)));
        VectorSchemaRoot root = VectorSchemaRoot.create(s, alloc);
        root.allocateNew();
        UInt8Vector rows = (UInt8Vector) root.getVector(0);
        UInt4Vector n = (UInt4Vector) root.getVector(1);
        for (int d = 0; d < p.numDocs(); d++) {
            rows.setSafe(d, p.rowId(d));
            n.setSafe(d, p.numTokens(d));
        }
        root.setRowCount(p.numDocs());
        return root;
    }

    private static VectorSchemaRoot invert(MemoryPartition p, List<String> order, boolean positions, BufferAllocator alloc) {
        List<Field> fields = new ArrayList<>();
        fields.add(new Field(InvertedIndexFiles.POSTING, FieldType.notNullable(ArrowType.List.INSTANCE), List.of(POSTING_ITEM)));
        fields.add(new Field(InvertedIndexFiles.MAX_SCORE, FieldType.notNullable(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE)), null));
        fields.add(new Field(InvertedIndexFiles.LENGTH, FieldType.notNullable(new ArrowType.Int(32, false)), null));
        if (positions) {
            Field inner = new Field("item", FieldType.nullable(ArrowType.List.INSTANCE), List.of(POSTING_ITEM));
            fields.add(new Field(InvertedIndexFiles.POSITION, FieldType.notNullable(ArrowType.List.INSTANCE), List.of(inner)));
        }
        VectorSchemaRoot root = VectorSchemaRoot.create(new Schema(fields), alloc);
        root.allocateNew();
        Bm25 bm25 = Bm25.of(p.numDocs(), p.totalTokens());
        UnionListWriter pw = ((ListVector) root.getVector(0)).getWriter();
        Float4Vector max = (Float4Vector) root.getVector(1);
        UInt4Vector len = (UInt4Vector) root.getVector(2);
        UnionListWriter posw = positions ? ((ListVector) root.getVector(3)).getWriter() : null;
        Map<String, PostingList> all = p.allPostings();
        for (int t = 0; t < order.size(); t++) {
            PostingList pl = all.get(order.get(t));
            float idf = bm25.idf(pl.size());
            pw.setPosition(t);
            pw.startList();
            float best = 0;
            for (int start = 0; start < pl.size(); start += BitPacker4x.BLOCK_LEN) {
                int n = Math.min(BitPacker4x.BLOCK_LEN, pl.size() - start);
                float blockMax = 0;
                for (int i = start; i < start + n; i++) {
                    blockMax = Math.max(blockMax, bm25.weight(idf, pl.freqs()[i], p.numTokens(pl.docs()[i])));
                }
                blockMax = Math.nextUp(blockMax); // an upper bound whatever Lance's rounding
                best = Math.max(best, blockMax);
                byte[] b = block(pl, start, n, blockMax);
                pw.largeVarBinary().writeLargeVarBinary(b);
            }
            pw.endList();
            max.setSafe(t, best);
            len.setSafe(t, pl.size());
            if (posw != null) {
                posw.setPosition(t);
                posw.startList();
                for (int i = 0; i < pl.size(); i++) {
                    var docList = posw.list();
                    docList.startList();
                    for (byte[] part : positionParts(pl.positions()[i])) {
                        docList.largeVarBinary().writeLargeVarBinary(part);
                    }
                    docList.endList();
                }
                posw.endList();
            }
        }
        pw.setValueCount(order.size());
        if (posw != null) {
            posw.setValueCount(order.size());
        }
        root.setRowCount(order.size());
        return root;
    }

    static byte[] block(PostingList pl, int start, int n, float blockMax) {
        if (n < BitPacker4x.BLOCK_LEN) {
            ByteBuffer b = ByteBuffer.allocate(4 + 8 * n).order(ByteOrder.LITTLE_ENDIAN);
            b.putFloat(blockMax);
            for (int i = 0; i < n; i++) {
                b.putInt(pl.docs()[start + i]);
            }
            for (int i = 0; i < n; i++) {
                b.putInt(pl.freqs()[start + i]);
            }
            return b.array();
        }
        int[] docs = java.util.Arrays.copyOfRange(pl.docs(), start, start + n);
        int[] freqs = java.util.Arrays.copyOfRange(pl.freqs(), start, start + n);
        int first = docs[0];
        int[] deltas = BitPacker4x.deltas(docs, first);
        int db = BitPacker4x.bitsNeeded(deltas), fb = BitPacker4x.bitsNeeded(freqs);
        byte[] out = new byte[4 + 4 + 1 + BitPacker4x.blockBytes(db) + 1 + BitPacker4x.blockBytes(fb)];
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        b.putFloat(blockMax);
        b.putInt(first);
        out[8] = (byte) db;
        BitPacker4x.pack(deltas, db, out, 9);
        int fo = 9 + BitPacker4x.blockBytes(db);
        out[fo] = (byte) fb;
        BitPacker4x.pack(freqs, fb, out, fo + 1);
        return out;
    }

    /** One doc's positions as Lance's binaries: the count, full blocks of deltas, the raw tail. */
    static List<byte[]> positionParts(int[] pos) {
        List<byte[]> parts = new ArrayList<>();
        parts.add(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(pos.length).array());
        int at = 0, prev = 0;
        while (pos.length - at >= BitPacker4x.BLOCK_LEN && pos.length - at > BitPacker4x.BLOCK_LEN) {
            int[] blk = java.util.Arrays.copyOfRange(pos, at, at + BitPacker4x.BLOCK_LEN);
            int[] d = BitPacker4x.deltas(blk, prev);
            int bits = BitPacker4x.bitsNeeded(d);
            byte[] b = new byte[1 + BitPacker4x.blockBytes(bits)];
            b[0] = (byte) bits;
            BitPacker4x.pack(d, bits, b, 1);
            parts.add(b);
            prev = blk[BitPacker4x.BLOCK_LEN - 1];
            at += BitPacker4x.BLOCK_LEN;
        }
        ByteBuffer tail = ByteBuffer.allocate(4 * (pos.length - at)).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = at; i < pos.length; i++) {
            tail.putInt(pos[i]);
        }
        parts.add(tail.array());
        return parts;
    }

    private static VectorSchemaRoot metadata(FtsParams params, BufferAllocator alloc) {
        Map<String, String> meta = new HashMap<>();
        meta.put("partitions", "[0]");
        meta.put("params", params.toJson());
        meta.put("posting_tail_codec", "fixed32_v1");
        Schema s = new Schema(List.of(new Field(InvertedIndexFiles.DELETED_FRAGMENTS, FieldType.notNullable(ArrowType.Binary.INSTANCE), null)), meta);
        VectorSchemaRoot root = VectorSchemaRoot.create(s, alloc);
        root.allocateNew();
        org.roaringbitmap.RoaringBitmap empty = new org.roaringbitmap.RoaringBitmap();
        ByteBuffer buf = ByteBuffer.allocate(empty.serializedSizeInBytes());
        empty.serialize(buf);
        ((VarBinaryVector) root.getVector(0)).setSafe(0, buf.array());
        root.setRowCount(1);
        return root;
    }
}
