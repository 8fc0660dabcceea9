package io.javelin.encoding.writer.v21;

import io.javelin.encoding.writer.Bytes;
import io.javelin.encoding.writer.LanceFileVersion;
import io.javelin.encoding.writer.LanceWriteException;
import io.javelin.encoding.writer.LeafType;
import io.javelin.encoding.writer.LeafValues;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Picks the value compression of a 2.1/2.2 page the way Lance's default strategy does
 * (file-format.md §10.3), honouring the {@code lance-encoding:*} field metadata.
 */
final class ValueChooser21 {
    static final String COMPRESSION = "lance-encoding:compression";
    static final String COMPRESSION_LEVEL = "lance-encoding:compression-level";
    static final String BSS = "lance-encoding:bss";
    static final String RLE_THRESHOLD = "lance-encoding:rle-threshold";
    static final String DICT_DIVISOR = "lance-encoding:dict-divisor";
    static final String DICT_SIZE_RATIO = "lance-encoding:dict-size-ratio";
    static final String DICT_VALUES_COMPRESSION = "lance-encoding:dict-values-compression";

    private ValueChooser21() {
    }

    record Params(String compression, int scheme, Integer level, String bss, double rleThreshold, long dictDivisor,
                  double dictRatio, String dictValuesCompression) {
        static Params of(Map<String, String> meta) {
            String c = meta.get(COMPRESSION);
            if (c != null) {
                c = c.toLowerCase(Locale.ROOT);
            }
            int scheme = switch (c == null ? "" : c) {
                case "zstd" -> 2;
                case "lz4" -> 1;
                case "", "none", "fsst" -> 0;
                default -> throw new LanceWriteException("Unknown compression scheme in " + COMPRESSION + ": " + c);
            };
            Integer level = meta.containsKey(COMPRESSION_LEVEL) ? Integer.valueOf(meta.get(COMPRESSION_LEVEL).trim()) : null;
            String bss = meta.getOrDefault(BSS, "auto").toLowerCase(Locale.ROOT);
            double rle = Double.parseDouble(meta.getOrDefault(RLE_THRESHOLD, "0.5"));
            long div = Long.parseLong(meta.getOrDefault(DICT_DIVISOR, "2"));
            double ratio = Double.parseDouble(meta.getOrDefault(DICT_SIZE_RATIO, "0.8"));
            if (ratio <= 0 || ratio > 1) {
                throw new LanceWriteException("Invalid " + DICT_SIZE_RATIO + ": " + ratio + " (expected (0, 1])");
            }
            return new Params(c, scheme, level, bss, rle, Math.max(1, div), ratio,
                    meta.get(DICT_VALUES_COMPRESSION));
        }

        boolean none() {
            return "none".equals(compression);
        }
    }

    static MiniBlockValues miniBlock(LeafValues v, LanceFileVersion version, Params p, boolean utf8) {
        return switch (v.type().kind()) {
            case BOOL -> wrap(MiniBlockCompressors.flat(v), p);
            case FIXED -> v.type().packed() != null ? packed(v)
                    : fixed(v.data().array(), v.count(), v.type().byteWidth(), p, true);
            case FSL -> MiniBlockCompressors.fsl(v);
            case VARIABLE -> variable(VarData.of(v), p, utf8);
        };
    }

    /** PackedStruct: row-major fixed-width children, chunked like Flat of their total width. */
    static MiniBlockValues packed(LeafValues v) {
        MiniBlockValues flat = MiniBlockCompressors.flatBytes(v.data().array(), v.count(), v.type().byteWidth());
        io.javelin.encoding.pb.v21.PackedStruct.Builder ps = io.javelin.encoding.pb.v21.PackedStruct.newBuilder()
                .setValues(Encodings21.flat(v.type().byteWidth() * 8));
        for (int w : v.type().packed()) {
            ps.addBitsPerValue(w * 8L);
        }
        return new MiniBlockValues(flat.chunks(),
                io.javelin.encoding.pb.v21.CompressiveEncoding.newBuilder().setPackedStruct(ps).build());
    }

    static MiniBlockValues wrap(MiniBlockValues base, Params p) {
        return p.scheme() != 0 ? VarCompressors.general(base, p.scheme(), p.level()) : base;
    }

    static MiniBlockValues fixed(byte[] data, int n, int w, Params p, boolean allowRle) {
        if (p.none()) {
            return MiniBlockCompressors.flatBytes(data, n, w);
        }
        boolean word = w == 1 || w == 2 || w == 4 || w == 8;
        MiniBlockValues base = null;
        if (p.scheme() != 0 && (w == 4 || w == 8) && "on".equals(p.bss())) {
            base = FixedCompressors.bss(data, n, w);
        }
        if (base == null && word && allowRle) {
            long runs = FixedCompressors.countRuns(data, n, w);
            if (runs < p.rleThreshold() * n) {
                base = FixedCompressors.rle(data, n, w);
            }
        }
        if (base == null && word) {
            int[] widths = Bitpack.widths(data, 0, n, w);
            long packed = FixedCompressors.bitpackedSize(widths, w);
            boolean tiny = widths.length == 1 && 128L * widths[0] >= (long) n * w;
            if (!tiny && packed < (long) n * w) {
                base = FixedCompressors.inlineBitpacking(data, n, w, widths);
            }
        }
        if (base == null) {
            base = MiniBlockCompressors.flatBytes(data, n, w);
        }
        return wrap(base, p);
    }

    static boolean useFsst(VarData d, long maxLen, Params p, boolean utf8) {
        if ("fsst".equals(p.compression())) {
            return true;
        }
        return !p.none() && utf8 && maxLen >= VarCompressors.FSST_MIN_MAX_LEN && d.dataSize() >= VarCompressors.FSST_MIN_INPUT;
    }

    static MiniBlockValues variable(VarData d, Params p, boolean utf8) {
        long maxLen = 0;
        for (int i = 0; i < d.count(); i++) {
            maxLen = Math.max(maxLen, d.end(i) - d.start(i));
        }
        VarData src = useFsst(d, maxLen, p, utf8) ? VarCompressors.fsst(d) : d;
        MiniBlockValues mv = MiniBlockCompressors.variable(src.count(), src::start, src::end, src.data(), src.offsetBytes());
        if (src != d) {
            mv = new MiniBlockValues(mv.chunks(), src.encoding());
        }
        return wrap(mv, p);
    }

    /** Per-value (full-zip) compression of variable-width values. */
    static VarData perValue(VarData d, long maxLen, Params p, boolean utf8) {
        if (p.none()) {
            return d;
        }
        boolean perValueRequested = p.scheme() != 0;
        if ((maxLen > 32 * 1024 || perValueRequested) && d.dataSize() >= VarCompressors.FSST_MIN_INPUT) {
            return VarCompressors.perValue(d, p.scheme() == 0 ? 2 : p.scheme(), p.level());
        }
        if (useFsst(d, maxLen, p, utf8)) {
            return VarCompressors.fsst(d);
        }
        return d;
    }

    // ------------------------------------------------------------------ dictionary

    /** Dictionary-encodes the page when Lance would (cardinality budget and size ratio), else null. */
    static MiniBlockValues dictionary(LeafValues v, LanceFileVersion version, Params p) {
        int n = v.count();
        if (n < 100 || p.none()) {
            return null;
        }
        LeafType t = v.type();
        long maxCard = Math.min(n / p.dictDivisor(), 100_000);
        if (t.kind() == LeafType.Kind.VARIABLE) {
            int ow = t.offsetBytes();
            byte[] data = v.data().array();
            ByteKeyIds ids = new ByteKeyIds(data, (int) Math.min(maxCard + 1, 4096));
            int[] idx = new int[n];
            Bytes dictData = new Bytes(1024);
            Bytes dictOffs = new Bytes(1024);
            dictOffs.uint(0, ow);
            for (int i = 0; i < n; i++) {
                int s = (int) v.start(i);
                int len = (int) (v.end(i) - s);
                int before = ids.size();
                int id = ids.idOf(s, len);
                if (id == before) {
                    if (id >= maxCard) {
                        return null;
                    }
                    dictData.put(data, s, len);
                    dictOffs.uint(dictData.size(), ow);
                }
                idx[i] = id;
            }
            long card = ids.size();
            long dataSize = v.data().size();
            long raw = dataSize + (long) (n + 1) * ow;
            long est = card * (dataSize / n) + card * ow + (long) n * ow;
            if ((double) est / raw >= p.dictRatio()) {
                return null;
            }
            Bytes block = new Bytes(2 * ow + dictOffs.size() + dictData.size());
            block.uint(ow * 8L, ow);
            block.uint(2L * ow + dictOffs.size(), ow);
            block.put(dictOffs.array(), 0, dictOffs.size());
            block.put(dictData.array(), 0, dictData.size());
            io.javelin.encoding.pb.v21.CompressiveEncoding denc = Encodings21.variable(ow * 8);
            Bytes dictBuf = block;
            int dvScheme = dictValuesScheme(version, p);
            if (dvScheme != 0) {
                dictBuf = Bytes.wrap(VarCompressors.block(block.toArray(), dvScheme));
                denc = Encodings21.general(dvScheme, null, denc);
            }
            MiniBlockValues indices = indices(idx, n, ow, p);
            return new MiniBlockValues(indices.chunks(), indices.encoding(), new MiniBlockValues.Dict(dictBuf, denc, card));
        }
        if (t.kind() == LeafType.Kind.FIXED && t.byteWidth() == 16) {
            byte[] data = v.data().array();
            HashMap<ByteBuffer, Integer> ids = new HashMap<>();
            int[] idx = new int[n];
            Bytes dict = new Bytes(1024);
            for (int i = 0; i < n; i++) {
                ByteBuffer key = ByteBuffer.wrap(data, i * 16, 16);
                Integer id = ids.get(key);
                if (id == null) {
                    id = ids.size();
                    if (id >= maxCard) {
                        return null;
                    }
                    ids.put(key, id);
                    dict.put(data, i * 16, 16);
                }
                idx[i] = id;
            }
            long card = ids.size();
            long est = card * 16 + (long) n * 4;
            if ((double) est / ((long) n * 16) >= p.dictRatio()) {
                return null;
            }
            MiniBlockValues indices = indices(idx, n, 4, p);
            return new MiniBlockValues(indices.chunks(), indices.encoding(),
                    new MiniBlockValues.Dict(dict, Encodings21.flat(128), card));
        }
        return null;
    }

    private static int dictValuesScheme(LanceFileVersion version, Params p) {
        String dv = p.dictValuesCompression();
        if (dv == null) {
            return version == LanceFileVersion.V2_2 ? 1 : 0;
        }
        return switch (dv.toLowerCase(Locale.ROOT)) {
            case "lz4" -> 1;
            case "zstd" -> 2;
            default -> 0;
        };
    }

    private static MiniBlockValues indices(int[] idx, int n, int width, Params p) {
        Bytes b = new Bytes(n * width);
        for (int i = 0; i < n; i++) {
            b.uint(idx[i], width);
        }
        Params plain = new Params(null, 0, null, "off", p.rleThreshold(), p.dictDivisor(), p.dictRatio(), null);
        return fixed(b.array(), n, width, plain, true);
    }
}
