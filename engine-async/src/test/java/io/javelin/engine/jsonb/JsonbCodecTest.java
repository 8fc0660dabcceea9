package io.javelin.engine.jsonb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The JSONB codec against bytes lance-core 7.0.0 wrote, and its text and conversions against jsonb's rules. */
class JsonbCodecTest {

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    static String text(String json) {
        byte[] b = JsonbEncoder.encode(json);
        return JsonbValues.toJson(b, Jsonb.root(b, 0, b.length));
    }

    @Test
    void encodesAsLanceCoreDid() {
        // bytes of these documents in a lance.json column written by lance-core 7.0.0
        assertThat(hex(JsonbEncoder.encode("42"))).isEqualTo("20000000200000025" + "02a");
        assertThat(hex(JsonbEncoder.encode("\"str\""))).isEqualTo("2000000010000003737472");
        assertThat(hex(JsonbEncoder.encode("null"))).isEqualTo("2000000000000000");
        assertThat(hex(JsonbEncoder.encode("[10,\"s\",true,null,{\"a\":1}]")))
                .isEqualTo("8000000520000002100000014000000000000000500000" + "0f500a73" + "400000011000000120000002615001");
        assertThat(hex(JsonbEncoder.encode(""))).isEqualTo(hex(JsonbEncoder.encode("null")));
    }

    @Test
    void textIsSerdeJsonCompact() {
        assertThat(text("{ \"z\" : 1, \"a\" : [ 1 , 2 ], \"é\": {}, \"B\": null }")).isEqualTo("{\"B\":null,\"a\":[1,2],\"z\":1,\"é\":{}}");
        assertThat(text("\"a\\\"b\\/c\\\\ \\u0001\\u00e4\\n\"")).isEqualTo("\"a\\\"b/c\\\\ \\u0001ä\\n\"");
        assertThat(text("[0, -0, -0.0, 2.50, 1E2, 1e300, 1e-7, 0.00001, 1e16, 1e15, 18446744073709551615, -9223372036854775808, 5e-324]"))
                .isEqualTo("[0,0,-0.0,2.5,100.0,1e+300,1e-7,0.00001,1e+16,1000000000000000.0,18446744073709551615,-9223372036854775808,5e-324]");
        assertThat(text("123456789012345678901")).isEqualTo("1.2345678901234568e+20");
    }

    @Test
    void floatsRoundTripThroughTheirText() {
        Random r = new Random(22);
        for (int k = 0; k < 20_000; k++) {
            double d = k % 2 == 0 ? Double.longBitsToDouble(r.nextLong()) : r.nextGaussian() * Math.pow(10, r.nextInt(40) - 20);
            if (!Double.isFinite(d)) {
                continue;
            }
            String s = JsonbNumbers.formatDouble(d);
            assertThat(Double.parseDouble(s)).as(s).isEqualTo(d);
            assertThat(s).as("one fraction digit at least, or an exponent").matches("-?\\d+(\\.\\d+)?(e[+-]\\d+)?").containsAnyOf(".", "e");
        }
    }

    @Test
    void strictConversionsFollowJsonb() {
        byte[] b = JsonbEncoder.encode("{\"i\":3,\"f\":-2.5,\"s\":\"7\",\"t\":\"1.5\",\"w\":\"abc\",\"y\":\"YES\",\"o\":{},\"big\":18446744073709551615}");
        long root = Jsonb.root(b, 0, b.length);
        assertThat(JsonbValues.toI64(b, member(b, root, "i"))).isEqualTo(3);
        assertThat(JsonbValues.toI64(b, member(b, root, "f"))).isEqualTo(-3);
        assertThat(JsonbValues.toI64(b, member(b, root, "s"))).isEqualTo(7);
        assertThat(JsonbValues.toI64(b, member(b, root, "t"))).isEqualTo(2);
        assertThat(JsonbValues.toF64(b, member(b, root, "big"))).isEqualTo(1.8446744073709552E19);
        assertThat(JsonbValues.toBool(b, member(b, root, "y"))).isTrue();
        assertThat(JsonbValues.toStr(b, member(b, root, "f"))).isEqualTo("-2.5");
        assertThatThrownBy(() -> JsonbValues.toI64(b, member(b, root, "w"))).isInstanceOf(JsonbException.class).hasMessageContaining("InvalidCast");
        assertThatThrownBy(() -> JsonbValues.toI64(b, member(b, root, "big"))).isInstanceOf(JsonbException.class);
        assertThatThrownBy(() -> JsonbValues.toBool(b, member(b, root, "i"))).isInstanceOf(JsonbException.class);
        assertThatThrownBy(() -> JsonbValues.toStr(b, member(b, root, "o"))).isInstanceOf(JsonbException.class);
        assertThat(member(b, root, "nope")).isEqualTo(Jsonb.ABSENT);
    }

    private static long member(byte[] b, long ref, String key) {
        return Jsonb.member(b, ref, key.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    @Test
    void pathsSelectOneValueOrAreRefused() {
        byte[] b = JsonbEncoder.encode("{\"a\":{\"b\":[1,{\"c\":\"x\"},3]},\"d e\":1}");
        assertThat(JsonbValues.toJson(b, JsonbPath.parse("$.a.b[1].c").find(b, 0, b.length))).isEqualTo("\"x\"");
        assertThat(JsonbValues.toJson(b, JsonbPath.parse("$[\"a\"].b[last]").find(b, 0, b.length))).isEqualTo("3");
        assertThat(JsonbValues.toJson(b, JsonbPath.parse("a.b[last - 2]").find(b, 0, b.length))).isEqualTo("1");
        assertThat(JsonbValues.toJson(b, JsonbPath.parse("$.\"d e\"").find(b, 0, b.length))).isEqualTo("1");
        assertThat(JsonbPath.parse("$.a.b[-1]").find(b, 0, b.length)).isEqualTo(Jsonb.ABSENT);
        assertThat(JsonbPath.parse("$[0]").find(b, 0, b.length)).isEqualTo(Jsonb.ABSENT);
        byte[] five = JsonbEncoder.encode("[5]");
        assertThat(JsonbValues.toJson(five, JsonbPath.key("+0").find(five, 0, five.length))).isEqualTo("5");
        assertThatThrownBy(() -> JsonbPath.parse("$.a[*]")).isInstanceOf(JsonbPath.Unsupported.class);
        assertThatThrownBy(() -> JsonbPath.parse("$..a")).isInstanceOf(JsonbPath.Unsupported.class);
        assertThatThrownBy(() -> JsonbPath.parse("$.")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid JSON path");
        assertThatThrownBy(() -> JsonbPath.parse("$['a']")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void malformedInputIsATypedError() {
        assertThatThrownBy(() -> JsonbEncoder.encode("{\"a\":1,\"a\":2}")).isInstanceOf(JsonbException.class).hasMessageContaining("duplicate");
        assertThatThrownBy(() -> JsonbEncoder.encode("[1,]")).isInstanceOf(JsonbException.class).hasMessageContaining("character 3");
        assertThatThrownBy(() -> JsonbEncoder.encode("01")).isInstanceOf(JsonbException.class);
        byte[] good = JsonbEncoder.encode("{\"a\":[1,2,3],\"b\":\"x\"}");
        Random r = new Random(7);
        for (int k = 0; k < 5000; k++) {
            byte[] bad = good.clone();
            bad[r.nextInt(bad.length)] = (byte) r.nextInt();
            int len = r.nextInt(bad.length + 1);
            try {
                JsonbValues.toJson(bad, Jsonb.root(bad, 0, len));
            } catch (JsonbException e) {
                assertThat(e).hasMessageContaining("JSONB");
            }
        }
    }
}
