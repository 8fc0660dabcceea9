package io.javelin.jmh;

import io.javelin.encoding.compress.BufferCompression;
import io.javelin.encoding.compress.FsstEncoder;
import io.javelin.encoding.compress.FsstSymbolTable;
import io.javelin.encoding.kernel.Kernels;
import io.javelin.encoding.kernel.ScalarKernels;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Decode kernels, scalar versus Vector API. Every benchmark processes {@link #VALUES} values (64
 * FastLanes blocks), so throughput in GB/s is {@code ops/s x bytes-per-op}; the bytes per op of each
 * benchmark are in its Javadoc (output bytes for decoders).
 *
 * <pre>
 *   ./mvnw -pl jmh -am package -DskipTests
 *   java --add-modules jdk.incubator.vector -cp "jmh/target/classes:$(cat jmh/target/classpath.txt)" \
 *        org.openjdk.jmh.Main KernelBenchmark -f 1 -wi 3 -i 5
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
    "--sun-misc-unsafe-memory-access=allow", "-Xms1g", "-Xmx1g"})
public class KernelBenchmark {

    static final int BLOCKS = 64;
    static final int VALUES = BLOCKS * 1024;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** "scalar" = ScalarKernels; "vector" = Kernels.get() (the Vector API kernels on this JVM). */
    @Param({"scalar", "vector"})
    public String impl;

    private Kernels kernels;
    private Arena arena;
    private MemorySegment packed32;
    private MemorySegment packed64;
    private MemorySegment packed8;
    private MemorySegment values32;
    private MemorySegment values64;
    private MemorySegment out;
    private MemorySegment levels;
    private MemorySegment bitmap;
    private MemorySegment runValues;
    private MemorySegment runLengths;
    private long runs;
    private MemorySegment indices;
    private MemorySegment dict;
    private MemorySegment offsets32;
    private MemorySegment fsstCodes;
    private long fsstCodeBytes;
    private long fsstDecoded;
    private FsstSymbolTable fsstTable;
    private MemorySegment zstdFrame;
    private MemorySegment lz4Frame;
    private long textBytes;

    @Setup(Level.Trial)
    public void setUp() {
        kernels = impl.equals("scalar") ? new ScalarKernels() : Kernels.get();
        arena = Arena.ofShared();
        Random random = new Random(1);
        values32 = arena.allocate(4L * VALUES);
        values64 = arena.allocate(8L * VALUES);
        for (int i = 0; i < VALUES; i++) {
            values32.set(U32, 4L * i, random.nextInt(1 << 7));
            values64.set(ValueLayout.JAVA_LONG_UNALIGNED, 8L * i, random.nextInt(1 << 12));
        }
        packed32 = arena.allocate(128L * 7 * BLOCKS);
        packed64 = arena.allocate(128L * 12 * BLOCKS);
        packed8 = arena.allocate(128L * 3 * BLOCKS);
        for (int b = 0; b < BLOCKS; b++) {
            kernels.pack(32, 7, values32, 4096L * b, packed32, 128L * 7 * b);
            kernels.pack(64, 12, values64, 8192L * b, packed64, 128L * 12 * b);
        }
        for (long i = 0; i < packed8.byteSize(); i++) {
            packed8.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        out = arena.allocate(8L * VALUES + 64);
        levels = arena.allocate(2L * VALUES);
        for (int i = 0; i < VALUES; i++) {
            levels.set(U16, 2L * i, (short) (random.nextInt(8) == 0 ? 1 : 0));
        }
        bitmap = arena.allocate(VALUES / 8 + 16);
        for (long i = 0; i < bitmap.byteSize(); i++) {
            bitmap.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        // RLE: runs of 1..40 values
        runValues = arena.allocate(4L * VALUES);
        runLengths = arena.allocate(VALUES);
        long total = 0;
        runs = 0;
        while (total < VALUES) {
            int len = 1 + random.nextInt(40);
            runValues.set(U32, 4 * runs, random.nextInt());
            runLengths.set(ValueLayout.JAVA_BYTE, runs, (byte) len);
            total += len;
            runs++;
        }
        indices = arena.allocate(4L * VALUES);
        for (int i = 0; i < VALUES; i++) {
            indices.set(U32, 4L * i, random.nextInt(1000));
        }
        dict = arena.allocate(8L * 1000);
        offsets32 = arena.allocate(4L * VALUES);
        for (int i = 0; i < VALUES; i++) {
            offsets32.set(U32, 4L * i, 1000 + 7 * i);
        }
        // text for FSST / zstd / lz4: ~512 KiB of word salad in 64 Ki strings
        String[] words = {"lance", "javelin", "column", "page", "buffer", "the", "of", "and", "row-", "caf\u00e9"};
        StringBuilder sb = new StringBuilder();
        MemorySegment strOffsets = arena.allocate(4L * (VALUES + 1));
        for (int i = 0; i < VALUES; i++) {
            strOffsets.set(U32, 4L * i, sb.length());
            sb.append(words[random.nextInt(words.length)]).append(i % 100).append(' ');
        }
        byte[] text = sb.toString().getBytes(StandardCharsets.UTF_8);
        textBytes = text.length;
        strOffsets.set(U32, 4L * VALUES, text.length);
        MemorySegment textSeg = arena.allocate(text.length);
        MemorySegment.copy(MemorySegment.ofArray(text), 0, textSeg, 0, text.length);
        MemorySegment table = arena.allocate(FsstSymbolTable.SERIALIZED_BYTES);
        MemorySegment codeOffsets = arena.allocate(4L * (VALUES + 1));
        fsstCodes = arena.allocate(FsstEncoder.maxCompressedLength(text.length));
        fsstCodeBytes = FsstEncoder.compress(4, strOffsets, 0, VALUES, textSeg, 0, table, 0, codeOffsets, 0, fsstCodes, 0);
        fsstTable = FsstSymbolTable.parse(table, 0);
        fsstDecoded = fsstTable.decodedLength(fsstCodes, 0, fsstCodeBytes);
        zstdFrame = BufferCompression.zstd().compress(textSeg, arena);
        lz4Frame = BufferCompression.lz4().compress(textSeg, arena);
        textOut = arena.allocate(text.length + 16);
        System.out.printf("text %d bytes, fsst codes %d bytes (decodes to %d), zstd %d, lz4 %d%n",
                textBytes, fsstCodeBytes, fsstDecoded, zstdFrame.byteSize(), lz4Frame.byteSize());
    }

    private MemorySegment textOut;

    @TearDown(Level.Trial)
    public void tearDown() {
        arena.close();
    }

    /** 64 blocks u32 at W=7: 256 KiB out. */
    @Benchmark
    public void unpackU32W7() {
        for (int b = 0; b < BLOCKS; b++) {
            kernels.unpack(32, 7, packed32, 128L * 7 * b, out, 4096L * b);
        }
    }

    /** 64 blocks u64 at W=12: 512 KiB out. */
    @Benchmark
    public void unpackU64W12() {
        for (int b = 0; b < BLOCKS; b++) {
            kernels.unpack(64, 12, packed64, 128L * 12 * b, out, 8192L * b);
        }
    }

    /** 64 blocks u8 at W=3: 64 KiB out. */
    @Benchmark
    public void unpackU8W3() {
        for (int b = 0; b < BLOCKS; b++) {
            kernels.unpack(8, 3, packed8, 384L * b, out, 1024L * b);
        }
    }

    /** 64 blocks u32 at W=7: 256 KiB in. */
    @Benchmark
    public void packU32W7() {
        for (int b = 0; b < BLOCKS; b++) {
            kernels.pack(32, 7, values32, 4096L * b, out, 128L * 7 * b);
        }
    }

    /** 64 Ki u16 levels -> bitmap: 128 KiB in. */
    @Benchmark
    public long defLevelsToValidity() {
        return kernels.defLevelsToValidity(levels, 0, VALUES, bitmap, 0);
    }

    /** 64 Ki u32 values out of runs of 1..40: 256 KiB out. */
    @Benchmark
    public long expandRleU32() {
        return kernels.expandRle(4, runValues, 0, runLengths, 0, runs, out, 0, VALUES);
    }

    /** 64 Ki u32 values: 256 KiB out. */
    @Benchmark
    public void bssDecode4() {
        kernels.bssDecode(4, values32, 0, VALUES, out, 0);
    }

    /** 32 Ki u64 values: 256 KiB out. */
    @Benchmark
    public void bssDecode8() {
        kernels.bssDecode(8, values32, 0, VALUES / 2, out, 0);
    }

    /** 64 Ki u64 values by u32 index from a 1000-entry dictionary: 512 KiB out. */
    @Benchmark
    public void gatherU64() {
        kernels.gather(8, dict, 0, 1000, 4, indices, 0, VALUES, out, 0);
    }

    /** 64 Ki bits (8 KiB). */
    @Benchmark
    public long countSetBits() {
        return kernels.countSetBits(bitmap, 3, VALUES);
    }

    /** 64 Ki bits (8 KiB), unaligned source and destination. */
    @Benchmark
    public void copyBitsUnaligned() {
        kernels.copyBits(bitmap, 3, out, 5, VALUES - 64);
    }

    /** 64 Ki u32 offsets widened to i64: 512 KiB out. */
    @Benchmark
    public void rebaseOffsets32to64() {
        kernels.rebaseOffsets32to64(offsets32, 0, VALUES, -1000, out, 0);
    }

    /** FSST decode of ~600 KiB of text (bytes out = fsstDecoded, printed at setup). */
    @Benchmark
    public long fsstDecode() {
        return fsstTable.decode(fsstCodes, 0, fsstCodeBytes, textOut, 0, textOut.byteSize());
    }

    /** zstd (pure Java) decompress of the same text. */
    @Benchmark
    public long zstdDecompress() {
        return BufferCompression.zstd().decompress(zstdFrame, textOut);
    }

    /** lz4 (pure Java) decompress of the same text. */
    @Benchmark
    public long lz4Decompress() {
        return BufferCompression.lz4().decompress(lz4Frame, textOut);
    }
}
