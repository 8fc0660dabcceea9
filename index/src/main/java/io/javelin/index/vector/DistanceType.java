package io.javelin.index.vector;

import io.javelin.index.kernel.DistanceKernels;
import io.javelin.index.pb.VectorMetricType;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * Lance's distance types (lance-linalg {@code DistanceType}) with the value Lance reports in
 * {@code _distance}: squared L2, {@code 1 - cos}, {@code 1 - x·y}, and the bit count for hamming.
 */
public enum DistanceType {
    L2("l2", VectorMetricType.L2),
    COSINE("cosine", VectorMetricType.Cosine),
    DOT("dot", VectorMetricType.Dot),
    HAMMING("hamming", VectorMetricType.Hamming);

    private final String lanceName;
    private final VectorMetricType proto;

    DistanceType(String lanceName, VectorMetricType proto) {
        this.lanceName = lanceName;
        this.proto = proto;
    }

    /** The string Lance writes in index metadata ({@code "l2"}, {@code "cosine"}, ...). */
    public String lanceName() {
        return lanceName;
    }

    public VectorMetricType proto() {
        return proto;
    }

    /** Parses Lance's metric strings, including the alias {@code euclidean}. */
    public static DistanceType parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "l2", "euclidean" -> L2;
            case "cosine" -> COSINE;
            case "dot" -> DOT;
            case "hamming" -> HAMMING;
            default -> throw new IllegalArgumentException("Unknown distance type: " + s);
        };
    }

    public static DistanceType fromProto(VectorMetricType t) {
        return switch (t) {
            case L2 -> L2;
            case Cosine -> COSINE;
            case Dot -> DOT;
            case Hamming -> HAMMING;
            default -> throw new IllegalArgumentException("Unknown metric type: " + t);
        };
    }

    /** Distance between two f32 vectors (byte offsets), in Lance's convention. */
    public float f32(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        DistanceKernels k = DistanceKernels.get();
        return switch (this) {
            case L2 -> k.l2F32(a, aOff, b, bOff, dim);
            case COSINE -> k.cosineF32(a, aOff, b, bOff, dim);
            case DOT -> 1f - k.dotF32(a, aOff, b, bOff, dim);
            case HAMMING -> throw new UnsupportedOperationException("hamming needs u8 vectors");
        };
    }

    /** Distance between two f32 vectors held in heap arrays ({@code aOff}/{@code bOff} in elements). */
    public float f32(float[] a, int aOff, float[] b, int bOff, int dim) {
        if (this == L2 && dim < 32) {
            return l2Short(a, aOff, b, bOff, dim);
        }
        DistanceKernels k = DistanceKernels.get();
        return switch (this) {
            case L2 -> k.l2F32(a, aOff, b, bOff, dim);
            case COSINE -> k.cosineF32(a, aOff, b, bOff, dim);
            case DOT -> 1f - k.dotF32(a, aOff, b, bOff, dim);
            case HAMMING -> throw new UnsupportedOperationException("hamming needs u8 vectors");
        };
    }

    /** Squared L2 of short vectors (PQ sub-vectors): a plain loop beats the vector kernel's setup. */
    static float l2Short(float[] a, int aOff, float[] b, int bOff, int dim) {
        float acc = 0;
        for (int i = 0; i < dim; i++) {
            float d = a[aOff + i] - b[bOff + i];
            acc += d * d;
        }
        return acc;
    }

    /** Distance between two u8 vectors (hamming over their bits, the others over the byte values). */
    public float u8(MemorySegment a, long aOff, MemorySegment b, long bOff, int dim) {
        DistanceKernels k = DistanceKernels.get();
        return switch (this) {
            case L2 -> k.l2U8(a, aOff, b, bOff, dim);
            case COSINE -> k.cosineU8(a, aOff, b, bOff, dim);
            case DOT -> 1f - k.dotU8(a, aOff, b, bOff, dim);
            case HAMMING -> k.hamming(a, aOff, b, bOff, dim);
        };
    }
}
