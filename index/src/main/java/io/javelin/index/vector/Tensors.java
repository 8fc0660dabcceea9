package io.javelin.index.vector;

import com.google.protobuf.ByteString;
import io.javelin.index.CorruptIndexException;
import io.javelin.index.pb.Tensor;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Conversions between Lance's {@code Tensor} protobuf (raw little-endian, row-major) and f32 arrays. */
public final class Tensors {

    private Tensors() {
    }

    /** A FLOAT32 tensor of the given 2-D shape; Lance readers accept only 2-D shapes. */
    public static Tensor f32(float[] values, int rows, int cols) {
        if ((long) rows * cols != values.length) {
            throw new IllegalArgumentException("Tensor shape " + rows + "x" + cols + " does not match " + values.length + " values");
        }
        ByteBuffer buf = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        buf.asFloatBuffer().put(values);
        return Tensor.newBuilder()
                .setDataType(Tensor.DataType.FLOAT32)
                .addShape(rows)
                .addShape(cols)
                .setData(ByteString.copyFrom(buf.array()))
                .build();
    }

    /** Reads a 2-D FLOAT16/FLOAT32/FLOAT64/BFLOAT16 tensor as f32, checking shape against the data length. */
    public static float[] toF32(Tensor t, String resource) {
        CorruptIndexException.check(t.getShapeCount() == 2, resource, "Tensor must be 2-D, shape=%s", t.getShapeList());
        long count = (long) t.getShape(0) * t.getShape(1);
        int width = switch (t.getDataType()) {
            case FLOAT32 -> 4;
            case FLOAT64 -> 8;
            case FLOAT16, BFLOAT16 -> 2;
            default -> throw new CorruptIndexException(resource, "Unsupported tensor data type " + t.getDataType());
        };
        CorruptIndexException.check(count * width == t.getData().size(), resource,
                "Tensor shape %s needs %d bytes, data has %d", t.getShapeList(), count * width, t.getData().size());
        ByteBuffer b = t.getData().asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
        float[] out = new float[(int) count];
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (t.getDataType()) {
                case FLOAT32 -> b.getFloat(4 * i);
                case FLOAT64 -> (float) b.getDouble(8 * i);
                case FLOAT16 -> Float.float16ToFloat(b.getShort(2 * i));
                default -> Float.intBitsToFloat((b.getShort(2 * i) & 0xFFFF) << 16);
            };
        }
        return out;
    }
}
