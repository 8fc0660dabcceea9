package io.javelin.tx.rowid;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.pb.EncodedU64Array;
import io.javelin.tx.pb.RowDatasetVersionRun;
import io.javelin.tx.pb.RowDatasetVersionSequence;
import io.javelin.tx.pb.U64Segment.Range;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * Wire form of {@link RowIdSequence} ({@code lance.table.RowIdSequence}, no length prefix, as Lance's
 * {@code write_row_ids}) and of row version sequences. Arrays are stored as base + little-endian u16/u32
 * offsets when max − min fits (Lance's {@code EncodedU64Array::from}), else as raw u64. Malformed input is an
 * {@link InvalidTableMetadataException}, never an unchecked crash.
 */
public final class RowIdCodec {

    private RowIdCodec() {
    }

    public static byte[] encode(RowIdSequence seq) {
        io.javelin.tx.pb.RowIdSequence.Builder b = io.javelin.tx.pb.RowIdSequence.newBuilder();
        for (U64Segment s : seq.segments()) {
            b.addSegments(toProto(s));
        }
        return b.build().toByteArray();
    }

    public static RowIdSequence decode(byte[] bytes) {
        try {
            io.javelin.tx.pb.RowIdSequence pb = io.javelin.tx.pb.RowIdSequence.parseFrom(bytes);
            List<U64Segment> out = new ArrayList<>(pb.getSegmentsCount());
            for (io.javelin.tx.pb.U64Segment s : pb.getSegmentsList()) {
                out.add(fromProto(s));
            }
            return new RowIdSequence(out);
        } catch (InvalidProtocolBufferException | IllegalArgumentException | ArithmeticException e) {
            throw new InvalidTableMetadataException("Corrupt row id sequence: " + e.getMessage());
        }
    }

    static io.javelin.tx.pb.U64Segment toProto(U64Segment s) {
        io.javelin.tx.pb.U64Segment.Builder b = io.javelin.tx.pb.U64Segment.newBuilder();
        switch (s) {
            case U64Segment.Range r -> b.setRange(Range.newBuilder().setStart(r.start()).setEnd(r.end()));
            case U64Segment.RangeWithHoles r -> b.setRangeWithHoles(io.javelin.tx.pb.U64Segment.RangeWithHoles.newBuilder()
                    .setStart(r.start()).setEnd(r.end()).setHoles(encodeArray(r.holes())));
            case U64Segment.RangeWithBitmap r -> b.setRangeWithBitmap(io.javelin.tx.pb.U64Segment.RangeWithBitmap.newBuilder()
                    .setStart(r.start()).setEnd(r.end()).setBitmap(ByteString.copyFrom(r.bitmap())));
            case U64Segment.SortedArray a -> b.setSortedArray(encodeArray(a.array()));
            case U64Segment.Array a -> b.setArray(encodeArray(a.array()));
        }
        return b.build();
    }

    static U64Segment fromProto(io.javelin.tx.pb.U64Segment s) {
        return switch (s.getSegmentCase()) {
            case RANGE -> new U64Segment.Range(s.getRange().getStart(), s.getRange().getEnd());
            case RANGE_WITH_HOLES -> {
                var r = s.getRangeWithHoles();
                if (!r.hasHoles()) {
                    throw new IllegalArgumentException("missing hole");
                }
                checkRange(r.getStart(), r.getEnd());
                long[] holes = decodeArray(r.getHoles());
                for (int i = 0; i < holes.length; i++) {
                    if (Long.compareUnsigned(holes[i], r.getStart()) < 0 || Long.compareUnsigned(holes[i], r.getEnd()) >= 0
                            || (i > 0 && Long.compareUnsigned(holes[i - 1], holes[i]) >= 0)) {
                        throw new IllegalArgumentException("holes must be ascending and inside the range");
                    }
                }
                yield new U64Segment.RangeWithHoles(r.getStart(), r.getEnd(), holes);
            }
            case RANGE_WITH_BITMAP -> {
                var r = s.getRangeWithBitmap();
                checkRange(r.getStart(), r.getEnd());
                long slots = r.getEnd() - r.getStart();
                if (r.getBitmap().size() < (slots + 7) / 8) {
                    throw new IllegalArgumentException("bitmap of " + r.getBitmap().size() + " bytes for " + slots + " slots");
                }
                yield new U64Segment.RangeWithBitmap(r.getStart(), r.getEnd(), r.getBitmap().toByteArray());
            }
            case SORTED_ARRAY -> new U64Segment.SortedArray(decodeArray(s.getSortedArray()));
            case ARRAY -> new U64Segment.Array(decodeArray(s.getArray()));
            case SEGMENT_NOT_SET -> throw new IllegalArgumentException("missing segment type");
        };
    }

    private static void checkRange(long start, long end) {
        if (Long.compareUnsigned(end, start) < 0) {
            throw new IllegalArgumentException("range end < start");
        }
        if (end - start > Integer.MAX_VALUE * 8L) {
            throw new IllegalArgumentException("range of " + Long.toUnsignedString(end - start) + " values is too large");
        }
    }

    /** Lance's choice: u16 offsets if max − min ≤ 65535, u32 if ≤ 2^32 − 1, else u64 values (empty: u64). */
    static EncodedU64Array encodeArray(long[] values) {
        EncodedU64Array.Builder b = EncodedU64Array.newBuilder();
        if (values.length == 0) {
            return b.setU64Array(EncodedU64Array.U64Array.newBuilder()).build();
        }
        long min = values[0];
        long max = values[0];
        for (long v : values) {
            if (Long.compareUnsigned(v, min) < 0) {
                min = v;
            }
            if (Long.compareUnsigned(v, max) > 0) {
                max = v;
            }
        }
        long span = max - min;
        if (Long.compareUnsigned(span, 0xFFFFL) <= 0) {
            ByteBuffer buf = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
            for (long v : values) {
                buf.putShort((short) (v - min));
            }
            return b.setU16Array(EncodedU64Array.U16Array.newBuilder().setBase(min).setOffsets(ByteString.copyFrom(buf.array()))).build();
        }
        if (Long.compareUnsigned(span, 0xFFFF_FFFFL) <= 0) {
            ByteBuffer buf = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (long v : values) {
                buf.putInt((int) (v - min));
            }
            return b.setU32Array(EncodedU64Array.U32Array.newBuilder().setBase(min).setOffsets(ByteString.copyFrom(buf.array()))).build();
        }
        ByteBuffer buf = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            buf.putLong(v);
        }
        return b.setU64Array(EncodedU64Array.U64Array.newBuilder().setValues(ByteString.copyFrom(buf.array()))).build();
    }

    static long[] decodeArray(EncodedU64Array a) {
        switch (a.getArrayCase()) {
            case U16_ARRAY -> {
                ByteBuffer buf = a.getU16Array().getOffsets().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                if (buf.remaining() % 2 != 0) {
                    throw new IllegalArgumentException("u16 array of " + buf.remaining() + " bytes");
                }
                long[] out = new long[buf.remaining() / 2];
                for (int i = 0; i < out.length; i++) {
                    out[i] = a.getU16Array().getBase() + Short.toUnsignedLong(buf.getShort());
                }
                return out;
            }
            case U32_ARRAY -> {
                ByteBuffer buf = a.getU32Array().getOffsets().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                if (buf.remaining() % 4 != 0) {
                    throw new IllegalArgumentException("u32 array of " + buf.remaining() + " bytes");
                }
                long[] out = new long[buf.remaining() / 4];
                for (int i = 0; i < out.length; i++) {
                    out[i] = a.getU32Array().getBase() + Integer.toUnsignedLong(buf.getInt());
                }
                return out;
            }
            case U64_ARRAY -> {
                ByteBuffer buf = a.getU64Array().getValues().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
                if (buf.remaining() % 8 != 0) {
                    throw new IllegalArgumentException("u64 array of " + buf.remaining() + " bytes");
                }
                long[] out = new long[buf.remaining() / 8];
                for (int i = 0; i < out.length; i++) {
                    out[i] = buf.getLong();
                }
                return out;
            }
            default -> throw new IllegalArgumentException("missing array type");
        }
    }

    // ------------------------------------------------------------------ row version sequences

    /** Runs of (row count, dataset version); each run's span is {@code Range[0, count)} as Lance writes it. */
    public static byte[] encodeVersions(List<RowVersions.Run> runs) {
        RowDatasetVersionSequence.Builder b = RowDatasetVersionSequence.newBuilder();
        for (RowVersions.Run r : runs) {
            b.addRuns(RowDatasetVersionRun.newBuilder().setVersion(r.version())
                    .setSpan(io.javelin.tx.pb.U64Segment.newBuilder().setRange(Range.newBuilder().setStart(0).setEnd(r.rows()))));
        }
        return b.build().toByteArray();
    }

    public static List<RowVersions.Run> decodeVersions(byte[] bytes) {
        try {
            List<RowVersions.Run> out = new ArrayList<>();
            for (RowDatasetVersionRun r : RowDatasetVersionSequence.parseFrom(bytes).getRunsList()) {
                if (!r.hasSpan()) {
                    throw new IllegalArgumentException("run without span");
                }
                out.add(new RowVersions.Run(fromProto(r.getSpan()).length(), r.getVersion()));
            }
            return out;
        } catch (InvalidProtocolBufferException | IllegalArgumentException | ArithmeticException e) {
            throw new InvalidTableMetadataException("Corrupt row version sequence: " + e.getMessage());
        }
    }
}
