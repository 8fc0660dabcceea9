package io.javelin.encoding.v21;

import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.file.ExternalBytes;
import io.javelin.encoding.io.Buf;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/** Blob descriptors ({@code position u64, size u64} per value) and the fetch of their payloads. */
public final class Blobs {

    private Blobs() {
    }

    /**
     * Turns descriptors into an {@link ExternalBytes} whose resolution gives large-binary values to
     * {@code finish} (null descriptors become empty values; the caller knows their validity).
     */
    public static ExternalBytes fetch(Buf ctx, long fileSize, Values.Fixed descriptors,
                                      BiFunction<Values.Var, long[][], Object> finish) {
        int n = descriptors.count();
        if (descriptors.bitsPerValue() != 128) {
            throw ctx.corrupt(0, "Blob descriptors of " + descriptors.bitsPerValue() + " bits");
        }
        Buf d = Buf.ofArray(ctx.resource(), ctx.fileOffset(), descriptors.data());
        long[][] desc = new long[n][2];
        List<long[]> ranges = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long pos = d.u64(16L * i);
            long size = d.u64(16L * i + 8);
            desc[i][0] = pos;
            desc[i][1] = size;
            if (size != 0) {
                if (pos < 0 || size < 0 || pos > fileSize || size > fileSize - pos) {
                    throw ctx.corrupt(16L * i, "Blob [" + pos + ", +" + size + ") outside the file");
                }
                ranges.add(new long[] {pos, size});
            }
        }
        return new ExternalBytes() {
            @Override
            public List<long[]> ranges() {
                return ranges;
            }

            @Override
            public Object resolve(List<Buf> bytes) {
                ValuesBuilder vb = new ValuesBuilder(true, 0, 1);
                int k = 0;
                for (int i = 0; i < n; i++) {
                    if (desc[i][1] == 0) {
                        vb.appendZeros(1);
                    } else {
                        byte[] b = bytes.get(k++).toArray();
                        vb.append(new Values.Var(new long[] {0, b.length}, b), 0, 1);
                    }
                }
                return finish.apply((Values.Var) vb.build(), desc);
            }
        };
    }
}
