package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.BufferCompression;
import io.javelin.encoding.pb.v21.CompressionScheme;
import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.FixedSizeList;
import io.javelin.encoding.pb.v21.Flat;
import io.javelin.encoding.pb.v21.Fsst;
import io.javelin.encoding.pb.v21.General;
import io.javelin.encoding.pb.v21.InlineBitpacking;
import io.javelin.encoding.pb.v21.OutOfLineBitpacking;
import io.javelin.encoding.pb.v21.Rle;
import io.javelin.encoding.pb.v21.Variable;
import com.google.protobuf.ByteString;

/** Builders of the 2.1 {@code CompressiveEncoding} messages. */
final class Encodings21 {
    private Encodings21() {
    }

    static CompressiveEncoding flat(int bits) {
        return CompressiveEncoding.newBuilder().setFlat(Flat.newBuilder().setBitsPerValue(bits)).build();
    }

    static CompressiveEncoding variable(int offsetBits) {
        return CompressiveEncoding.newBuilder().setVariable(Variable.newBuilder().setOffsets(flat(offsetBits))).build();
    }

    static CompressiveEncoding fsl(int dim, boolean hasValidity, CompressiveEncoding inner) {
        return CompressiveEncoding.newBuilder().setFixedSizeList(FixedSizeList.newBuilder()
                .setItemsPerValue(dim).setHasValidity(hasValidity).setValues(inner)).build();
    }

    static CompressiveEncoding inlineBitpacking(int bits) {
        return CompressiveEncoding.newBuilder().setInlineBitpacking(
                InlineBitpacking.newBuilder().setUncompressedBitsPerValue(bits)).build();
    }

    static CompressiveEncoding outOfLineBitpacking(int bits, int width) {
        return CompressiveEncoding.newBuilder().setOutOfLineBitpacking(OutOfLineBitpacking.newBuilder()
                .setUncompressedBitsPerValue(bits).setValues(flat(width))).build();
    }

    static CompressiveEncoding fsst(byte[] table, CompressiveEncoding values) {
        return CompressiveEncoding.newBuilder().setFsst(Fsst.newBuilder()
                .setSymbolTable(ByteString.copyFrom(table)).setValues(values)).build();
    }

    static CompressiveEncoding rle(int bits) {
        return CompressiveEncoding.newBuilder().setRle(Rle.newBuilder().setValues(flat(bits)).setRunLengths(flat(8))).build();
    }

    static CompressiveEncoding general(int scheme, Integer level, CompressiveEncoding inner) {
        BufferCompression.Builder bc = BufferCompression.newBuilder().setScheme(CompressionScheme.forNumber(scheme));
        if (level != null) {
            bc.setLevel(level);
        }
        return CompressiveEncoding.newBuilder().setGeneral(General.newBuilder().setCompression(bc).setValues(inner)).build();
    }
}
