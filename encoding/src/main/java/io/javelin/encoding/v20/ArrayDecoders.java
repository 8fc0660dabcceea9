package io.javelin.encoding.v20;

import io.javelin.encoding.UnsupportedEncodingException;
import io.javelin.encoding.arrow.Bits;
import io.javelin.encoding.arrow.Values;
import io.javelin.encoding.arrow.ValuesBuilder;
import io.javelin.encoding.io.Buf;
import io.javelin.encoding.pb.v20.ArrayEncoding;
import io.javelin.encoding.pb.v20.Buffer;
import io.javelin.encoding.pb.v20.Compression;
import io.javelin.encoding.v21.Codecs;
import java.util.List;

/** Decoders for the 2.0 {@code ArrayEncoding} tree of one page. */
final class ArrayDecoders {

    static final long MAX_VALUES = 1L << 24;

    private ArrayDecoders() {
    }

    /** Values and validity (null = all valid) of {@code n} slots. */
    record Decoded(Values values, byte[] validity) {
    }

    static Buf buffer(List<Buf> bufs, Buffer b, Buf ctx) {
        if (b.getBufferType() != Buffer.BufferType.page) {
            throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(), "2.0 " + b.getBufferType() + " buffers");
        }
        int i = b.getBufferIndex();
        if (i < 0 || i >= bufs.size()) {
            throw ctx.corrupt(0, "Buffer index " + i + " of " + bufs.size() + " page buffers");
        }
        return bufs.get(i);
    }

    static Decoded decode(ArrayEncoding e, List<Buf> bufs, long n, Buf ctx) {
        if (n < 0 || n > MAX_VALUES) {
            throw ctx.corrupt(0, "Impossible value count " + n);
        }
        switch (e.getArrayEncodingCase()) {
            case NULLABLE: {
                var nl = e.getNullable();
                switch (nl.getNullabilityCase()) {
                    case NO_NULLS:
                        return new Decoded(decode(nl.getNoNulls().getValues(), bufs, n, ctx).values(), null);
                    case SOME_NULLS: {
                        Decoded v = decode(nl.getSomeNulls().getValidity(), bufs, n, ctx);
                        if (!(v.values() instanceof Values.Fixed f) || f.bitsPerValue() != 1) {
                            throw ctx.corrupt(0, "Validity must be a bitmap");
                        }
                        Decoded vals = decode(nl.getSomeNulls().getValues(), bufs, n, ctx);
                        return new Decoded(vals.values(), f.data());
                    }
                    case ALL_NULLS:
                        return null; // caller fills zeros of the right kind
                    default:
                        throw ctx.corrupt(0, "Nullable without a case");
                }
            }
            case FLAT: {
                var fl = e.getFlat();
                long bits = fl.getBitsPerValue();
                if (bits != 1 && (bits <= 0 || bits % 8 != 0 || bits > 8L * 65536)) {
                    throw ctx.corrupt(0, "Impossible bits per value " + bits);
                }
                Buf b = buffer(bufs, fl.getBuffer(), ctx);
                if (fl.hasCompression() && !fl.getCompression().getScheme().isEmpty()) {
                    b = decompress(fl.getCompression(), b);
                }
                long bytes = bits == 1 ? (n + 7) / 8 : n * (bits / 8);
                return new Decoded(new Values.Fixed(b.bytes(0, bytes), (int) bits, (int) n), null);
            }
            case FIXED_SIZE_LIST: {
                var fsl = e.getFixedSizeList();
                long dim = fsl.getDimension();
                if (dim <= 0 || dim * n > MAX_VALUES) {
                    throw ctx.corrupt(0, "Impossible fixed-size-list dimension " + dim);
                }
                Decoded items = decode(fsl.getItems(), bufs, dim * n, ctx);
                if (items == null) {
                    throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(), "All-null fixed-size-list items");
                }
                Values.Fixed f = (Values.Fixed) items.values();
                return new Decoded(new Values.Fixed(f.data(), f.bitsPerValue() * (int) dim, (int) n, items.validity(), (int) dim),
                        null);
            }
            case BINARY: {
                var bin = e.getBinary();
                Decoded idx = decode(bin.getIndices(), bufs, n, ctx);
                Values.Fixed ix = (Values.Fixed) idx.values();
                if (ix.bitsPerValue() != 64 && ix.bitsPerValue() != 32) {
                    throw ctx.corrupt(0, "Binary indices of " + ix.bitsPerValue() + " bits");
                }
                int w = ix.bitsPerValue() / 8;
                Buf ib = Buf.ofArray(ctx.resource(), ctx.fileOffset(), ix.data());
                long adj = bin.getNullAdjustment();
                long[] off = new long[(int) n + 1];
                byte[] validity = null;
                for (int i = 0; i < n; i++) {
                    long v = ib.uint((long) i * w, w);
                    if (adj > 0 && Long.compareUnsigned(v, adj) >= 0) {
                        if (validity == null) {
                            validity = new byte[Bits.bytesFor(n)];
                            for (int k = 0; k < i; k++) {
                                Bits.set(validity, k);
                            }
                        }
                        v -= adj;
                    } else if (validity != null) {
                        Bits.set(validity, i);
                    }
                    if (v < off[i]) {
                        throw ctx.corrupt(0, "Binary offsets out of order at " + i);
                    }
                    off[i + 1] = v;
                }
                Decoded bytes = decode(bin.getBytes(), bufs, off[(int) n], ctx);
                Values.Fixed data = (Values.Fixed) bytes.values();
                return new Decoded(new Values.Var(off, data.data()), validity);
            }
            case DICTIONARY: {
                var d = e.getDictionary();
                Decoded items = decode(d.getItems(), bufs, d.getNumDictionaryItems(), ctx);
                Decoded idx = decode(d.getIndices(), bufs, n, ctx);
                Values.Fixed ix = (Values.Fixed) idx.values();
                int w = ix.bitsPerValue() / 8;
                if (w < 1 || w > 8) {
                    throw ctx.corrupt(0, "Dictionary indices of " + ix.bitsPerValue() + " bits");
                }
                Buf ib = Buf.ofArray(ctx.resource(), ctx.fileOffset(), ix.data());
                boolean var = items.values() instanceof Values.Var;
                int bits = var ? 0 : ((Values.Fixed) items.values()).bitsPerValue();
                ValuesBuilder vb = new ValuesBuilder(var, bits, 1);
                byte[] validity = null;
                for (int i = 0; i < n; i++) {
                    long k = ib.uint((long) i * w, w);
                    if (k == 0) {
                        if (validity == null) {
                            validity = new byte[Bits.bytesFor(n)];
                            for (int j = 0; j < i; j++) {
                                Bits.set(validity, j);
                            }
                        }
                        vb.appendZeros(1);
                        continue;
                    }
                    if (k > items.values().count()) {
                        throw ctx.corrupt(0, "Dictionary index " + k + " out of range [1, " + items.values().count() + "]");
                    }
                    if (validity != null) {
                        Bits.set(validity, i);
                    }
                    vb.append(items.values(), (int) k - 1, (int) k);
                }
                return new Decoded(vb.build(), validity);
            }
            case FSST: {
                Decoded bin = decode(e.getFsst().getBinary(), bufs, n, ctx);
                Buf table = Buf.ofArray(ctx.resource(), ctx.fileOffset(), e.getFsst().getSymbolTable().toByteArray());
                return new Decoded(Codecs.fsstDecode(table, (Values.Var) bin.values()), bin.validity());
            }
            case PACKED_STRUCT: {
                var ps = e.getPackedStruct();
                long sum = 0;
                for (ArrayEncoding inner : ps.getInnerList()) {
                    ArrayEncoding x = inner;
                    if (x.hasNullable() && x.getNullable().hasNoNulls()) {
                        x = x.getNullable().getNoNulls().getValues();
                    }
                    if (!x.hasFlat()) {
                        throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(), "Packed struct child " + x.getArrayEncodingCase());
                    }
                    sum += x.getFlat().getBitsPerValue();
                }
                if (sum <= 0 || sum % 8 != 0 || sum > 8L * 65536) {
                    throw ctx.corrupt(0, "Impossible packed struct width " + sum);
                }
                Buf b = buffer(bufs, ps.getBuffer(), ctx);
                return new Decoded(new Values.Fixed(b.bytes(0, n * (sum / 8)), (int) sum, (int) n), null);
            }
            case CONSTANT: {
                byte[] v = e.getConstant().getValue().toByteArray();
                byte[] out = new byte[Math.toIntExact(v.length * n)];
                for (int i = 0; i < n; i++) {
                    System.arraycopy(v, 0, out, i * v.length, v.length);
                }
                return new Decoded(new Values.Fixed(out, Math.max(8, v.length * 8), (int) n), null);
            }
            default:
                throw new UnsupportedEncodingException(ctx.resource(), ctx.fileOffset(), "2.0 encoding " + e.getArrayEncodingCase()
                        + " not supported");
        }
    }

    static Buf decompress(Compression c, Buf b) {
        byte[] out = switch (c.getScheme()) {
            case "zstd" -> Codecs.zstd(b);
            case "lz4" -> Codecs.lz4(b);
            default -> throw new UnsupportedEncodingException(b.resource(), b.fileOffset(), "Compression scheme " + c.getScheme());
        };
        return Buf.ofArray(b.resource(), b.fileOffset(), out);
    }
}
