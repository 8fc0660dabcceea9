package io.javelin.tx.deletion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.tx.CorruptFileException;
import io.javelin.tx.Golden;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.store.InMemoryManifestStore;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class DeletionFilesTest {

    static final String D = Golden.VERSIONS_DELETES;

    @Test
    void goldenArrowFiles() {
        RoaringBitmap v2f0 = ArrowDeletionCodec.read("a", Golden.bytes(D, "_deletions/0-1-7945916142726608562.arrow"));
        assertThat(v2f0.getCardinality()).isEqualTo(100);
        assertThat(v2f0).isEqualTo(RoaringBitmap.bitmapOfRange(0, 100));
        for (String p : new String[] {"_deletions/0-4-5279756962253315844.arrow", "_deletions/1-4-6611334145744236838.arrow"}) {
            RoaringBitmap rb = ArrowDeletionCodec.read(p, Golden.bytes(D, p));
            assertThat(rb.getCardinality()).isEqualTo(600);
            rb.forEach((int o) -> assertThat(o % 10).isEqualTo(3));
        }
        RoaringBitmap f2 = ArrowDeletionCodec.read("c", Golden.bytes(D, "_deletions/2-4-6612766665613087672.arrow"));
        assertThat(f2.getCardinality()).isEqualTo(400);
        assertThat(f2.last()).isEqualTo(3993);
    }

    @Test
    void goldenBitmapFile() {
        byte[] bytes = Golden.bytes(D, "_deletions/1-5-7179599921505277861.bin");
        RoaringBitmap rb = BitmapDeletionCodec.read("b", bytes);
        assertThat(rb.getCardinality()).isEqualTo(5550);
        RoaringBitmap expected = RoaringBitmap.bitmapOfRange(0, 5500);
        for (int o = 5500; o < 6000; o++) {
            if (o % 10 == 3) {
                expected.add(o);
            }
        }
        assertThat(rb).isEqualTo(expected);
        // we write the very same bytes: no run containers even though the offsets form a long run
        assertThat(BitmapDeletionCodec.write(expected)).isEqualTo(bytes);
        assertThat(Arrays.copyOf(BitmapDeletionCodec.write(expected), 4)).containsExactly(0x3A, 0x30, 0, 0);
    }

    @Test
    void arrowRoundTrip() {
        Random rnd = new Random(42);
        for (int n : new int[] {0, 1, 7, 100, 4999, 5000, 20000}) {
            RoaringBitmap rb = new RoaringBitmap();
            while (rb.getCardinality() < n) {
                rb.add(rnd.nextInt(1_000_000));
            }
            if (n == 7) {
                rb.add(-1); // u32::MAX survives as unsigned
            }
            byte[] bytes = ArrowDeletionCodec.write(rb);
            assertThat(new String(bytes, 0, 6)).isEqualTo("ARROW1");
            assertThat(new String(bytes, bytes.length - 6, 6)).isEqualTo("ARROW1");
            assertThat(ArrowDeletionCodec.read("r", bytes)).isEqualTo(rb);
        }
    }

    @Test
    void ourArrowFileLooksLikeLances() {
        byte[] ours = ArrowDeletionCodec.write(RoaringBitmap.bitmapOfRange(0, 100));
        // ZSTD frame magic in the body, schema message first after the 8-byte magic block
        assertThat(indexOf(ours, new byte[] {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd})).isPositive();
        assertThat(ByteBuffer.wrap(ours, 8, 4).order(ByteOrder.LITTLE_ENDIAN).getInt()).isEqualTo(-1);
        assertThat(indexOf(ours, "row_id".getBytes())).isPositive();
    }

    @Test
    void hostileArrowFiles() {
        byte[] good = Golden.bytes(D, "_deletions/0-1-7945916142726608562.arrow");
        for (int len = 0; len < good.length; len += 7) {
            byte[] cut = Arrays.copyOf(good, len);
            assertThatThrownBy(() -> ArrowDeletionCodec.read("t", cut)).isInstanceOf(CorruptFileException.class)
                    .hasMessageContaining("path=t");
        }
        byte[] renamed = good.clone();
        replaceAll(renamed, "row_id".getBytes(), "row_ix".getBytes());
        assertThatThrownBy(() -> ArrowDeletionCodec.read("s", renamed)).isInstanceOf(CorruptFileException.class)
                .hasMessageContaining("row_id: uint32 not null");
        Random rnd = new Random(7);
        for (int i = 0; i < 300; i++) {
            byte[] flipped = good.clone();
            flipped[64 + rnd.nextInt(good.length - 80)] ^= (byte) (1 << rnd.nextInt(8));
            try {
                ArrowDeletionCodec.read("f", flipped); // some flips land in padding: fine if it still decodes
            } catch (CorruptFileException expected) {
                assertThat(expected.path()).isEqualTo("f");
            }
        }
    }

    @Test
    void hostileBitmapFiles() {
        byte[] good = Golden.bytes(D, "_deletions/1-5-7179599921505277861.bin");
        for (int len : new int[] {0, 3, 8, 16, 100, good.length - 1}) {
            byte[] cut = Arrays.copyOf(good, len);
            assertThatThrownBy(() -> BitmapDeletionCodec.read("b", cut)).isInstanceOf(CorruptFileException.class);
        }
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThatThrownBy(() -> BitmapDeletionCodec.read("b", trailing)).hasMessageContaining("Trailing 1 bytes");
    }

    @Test
    void thresholdAndNames() {
        assertThat(DeletionFiles.typeFor(4999)).isEqualTo(DeletionFile.DeletionFileType.ARROW_ARRAY);
        assertThat(DeletionFiles.typeFor(5000)).isEqualTo(DeletionFile.DeletionFileType.BITMAP);
        assertThat(DeletionFiles.typeFor(600)).isEqualTo(DeletionFile.DeletionFileType.ARROW_ARRAY);
        assertThat(DeletionFiles.typeFor(5550)).isEqualTo(DeletionFile.DeletionFileType.BITMAP);
        DeletionFile df = DeletionFile.newBuilder().setFileType(DeletionFile.DeletionFileType.BITMAP).setReadVersion(5)
                .setId(7179599921505277861L).build();
        assertThat(DeletionFiles.path(1, df)).isEqualTo("_deletions/1-5-7179599921505277861.bin");
        assertThat(DeletionFiles.path(0, df.toBuilder().setFileType(DeletionFile.DeletionFileType.ARROW_ARRAY).setId(-1).build()))
                .isEqualTo("_deletions/0-5-18446744073709551615.arrow");
    }

    @Test
    void writeThenReadThroughAFragment() {
        InMemoryManifestStore store = new InMemoryManifestStore();
        for (int n : new int[] {3, 6000}) {
            RoaringBitmap rb = RoaringBitmap.bitmapOfRange(10, 10 + n);
            DeletionFile df = DeletionFiles.write(store, 4, 9, rb).block();
            assertThat(df.getNumDeletedRows()).isEqualTo(n);
            assertThat(df.getReadVersion()).isEqualTo(9);
            assertThat(store.peek(DeletionFiles.path(4, df))).isNotNull();
            DataFragment f = DataFragment.newBuilder().setId(4).setPhysicalRows(10_000).setDeletionFile(df).build();
            assertThat(DeletionFiles.read(store, f).block()).isEqualTo(rb);
            DataFragment lying = f.toBuilder().setDeletionFile(df.toBuilder().setNumDeletedRows(n + 1)).build();
            assertThatThrownBy(() -> DeletionFiles.read(store, lying).block()).isInstanceOf(CorruptFileException.class)
                    .hasMessageContaining("manifest says " + (n + 1));
            DataFragment small = f.toBuilder().setPhysicalRows(12).build();
            assertThatThrownBy(() -> DeletionFiles.read(store, small).block()).hasMessageContaining("not below physical_rows 12");
        }
        assertThatThrownBy(() -> DeletionFiles.write(store, 1, 1, new RoaringBitmap()).block())
                .isInstanceOf(IllegalArgumentException.class);
    }

    static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    static void replaceAll(byte[] hay, byte[] from, byte[] to) {
        int i;
        while ((i = indexOf(hay, from)) >= 0) {
            System.arraycopy(to, 0, hay, i, to.length);
        }
    }
}
