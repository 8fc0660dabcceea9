package io.javelin.encoding.writer.v21;

import io.javelin.encoding.pb.v21.CompressiveEncoding;
import io.javelin.encoding.pb.v21.FullZipLayout;
import io.javelin.encoding.pb.v21.PageLayout;
import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.EncodedPage;
import io.javelin.encoding.writer.LanceWriteException;
import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.LeafValues;
import java.util.ArrayList;
import java.util.List;

/** Full-zip pages: per level a control word followed by the value (file-format.md §7). */
final class FullZip {
    private FullZip() {
    }

    static int bitLen(int v) {
        return 32 - Integer.numberOfLeadingZeros(v);
    }

    static EncodedPage encode(PageInput in, VarData var) {
        LeafValues v = in.values();
        int maxRepPresent = 0;
        int maxDefPresent = 0;
        int n = in.numLevels();
        if (in.rep() != null) {
            for (int i = 0; i < n; i++) {
                maxRepPresent = Math.max(maxRepPresent, in.rep()[i] & 0xFFFF);
            }
        }
        if (in.def() != null) {
            for (int i = 0; i < n; i++) {
                maxDefPresent = Math.max(maxDefPresent, in.def()[i] & 0xFFFF);
            }
        }
        int bitsRep = bitLen(maxRepPresent);
        int bitsDef = bitLen(maxDefPresent);
        int ctrlBits = bitsRep + bitsDef;
        int ctrlBytes = ctrlBits == 0 ? 0 : ctrlBits <= 8 ? 1 : ctrlBits <= 16 ? 2 : 4;
        boolean hasRep = in.rep() != null;
        int numItems = hasRep ? n : in.numValues();
        if (in.rep() == null && in.def() == null) {
            n = in.numValues();
        }
        LeafType t = v.type();
        boolean variable = t.kind() == LeafType.Kind.VARIABLE;
        Bytes out = new Bytes((int) Math.min(Integer.MAX_VALUE - 64, v.data().size() + (long) n * (ctrlBytes + 8) + 64));
        List<Long> rowStarts = new ArrayList<>();
        boolean needIndex = variable || hasRep;
        long[] starts = needIndex ? new long[(int) in.numRows() + 1] : null;
        int rowCount = 0;
        int valueIdx = 0;
        int rowBytes = 0;
        byte[][] fslValidity = null;
        int[] fslValidityBytes = null;
        CompressiveEncoding enc;
        int bitsPerValue = 0;
        if (t.kind() == LeafType.Kind.FIXED) {
            rowBytes = t.byteWidth();
            enc = Encodings21.flat(rowBytes * 8);
        } else if (t.kind() == LeafType.Kind.FSL) {
            int layers = t.dims().length;
            fslValidityBytes = new int[layers];
            int cum = 1;
            rowBytes = t.valueBytes();
            for (int l = 0; l < layers; l++) {
                cum *= t.dims()[l];
                if (v.layerHasNull(l)) {
                    fslValidityBytes[l] = (cum + 7) / 8;
                    rowBytes += fslValidityBytes[l];
                }
            }
            enc = MiniBlockCompressors.fslEncoding(v);
        } else if (variable) {
            enc = var.encoding();
        } else {
            throw new LanceWriteException("Full-zip layout does not support booleans");
        }
        bitsPerValue = rowBytes * 8;
        byte[] data = v.data().array();
        int valueBytes = t.valueBytes();
        for (int i = 0; i < n; i++) {
            int rep = hasRep ? in.rep()[i] & 0xFFFF : 0;
            int def = in.def() != null ? in.def()[i] & 0xFFFF : 0;
            boolean newRow = !hasRep || rep == in.maxRep();
            if (newRow && needIndex) {
                starts[rowCount] = out.size();
            }
            if (newRow) {
                rowCount++;
            }
            if (ctrlBytes > 0) {
                out.uint(((long) rep << bitsDef) | def, ctrlBytes);
            }
            boolean visible = def <= in.maxVisibleDef();
            if (!visible) {
                continue;
            }
            if (variable) {
                if (def == 0) {
                    long s = var.start(valueIdx);
                    long e = var.end(valueIdx);
                    out.uint(e - s, t.offsetBytes());
                    out.put(var.data(), (int) s, (int) (e - s));
                }
            } else if (t.kind() == LeafType.Kind.FSL) {
                int cum = 1;
                for (int l = 0; l < t.dims().length; l++) {
                    cum *= t.dims()[l];
                    if (fslValidityBytes[l] > 0) {
                        out.put(MiniBlockCompressors.packBits(v.validity(l).array(), valueIdx * cum, cum));
                    }
                }
                out.put(data, valueIdx * valueBytes, valueBytes);
            } else {
                out.put(data, valueIdx * rowBytes, rowBytes);
            }
            valueIdx++;
        }
        List<Bytes> buffers = new ArrayList<>(2);
        buffers.add(out);
        if (needIndex) {
            starts[rowCount] = out.size();
            long max = out.size();
            int w = max <= 0xFF ? 1 : max <= 0xFFFF ? 2 : max <= 0xFFFFFFFFL ? 4 : 8;
            Bytes idx = new Bytes((rowCount + 1) * w);
            for (int r = 0; r <= rowCount; r++) {
                idx.uint(starts[r], w);
            }
            buffers.add(idx);
        }
        FullZipLayout.Builder fz = FullZipLayout.newBuilder()
                .setBitsRep(bitsRep)
                .setBitsDef(bitsDef)
                .setNumItems(numItems)
                .setNumVisibleItems(in.numValues())
                .setValueCompression(enc)
                .addAllLayers(in.layers());
        if (variable) {
            fz.setBitsPerOffset(t.offsetBytes() * 8);
        } else {
            fz.setBitsPerValue(bitsPerValue);
        }
        return new EncodedPage(buffers, PageLayout.newBuilder().setFullZipLayout(fz).build(), in.numRows(), in.firstRow());
    }
}
