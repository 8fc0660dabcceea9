package io.javelin.tx.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javelin.encoding.pb.file.Field;
import io.javelin.tx.Golden;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.UnsupportedFeatureException;
import io.javelin.tx.manifest.ManifestCodec;
import io.javelin.tx.pb.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;

class ArrowSchemasTest {

    @Test
    void goldenSchema() {
        String p = "_versions/18446744073709551609.manifest";
        Manifest m = ManifestCodec.decode(p, Golden.bytes(Golden.VERSIONS_DELETES, p)).manifest();
        LanceSchema s = LanceSchema.fromProto(m.getFieldsList(), Map.of());
        assertThat(s.fields()).extracting(LanceField::name).containsExactly("id", "gen", "name", "score");
        assertThat(s.fields()).extracting(LanceField::id).containsExactly(0, 1, 2, 3);
        assertThat(s.toProto()).isEqualTo(m.getFieldsList());
        Schema arrow = ArrowSchemas.toArrow(s);
        assertThat(arrow.getFields().get(0).getType()).isEqualTo(new ArrowType.Int(64, true));
        assertThat(arrow.getFields().get(0).isNullable()).isFalse();
        assertThat(arrow.getFields().get(1).getType()).isEqualTo(new ArrowType.Int(32, true));
        assertThat(arrow.getFields().get(2).getType()).isEqualTo(ArrowType.Utf8.INSTANCE);
        assertThat(arrow.getFields().get(2).isNullable()).isTrue();
        assertThat(arrow.getFields().get(3).getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE));
    }

    /** The types of the golden types_v2_x tables, written the way Lance 7.0.0 stores them. */
    @Test
    void everyGoldenCorpusType() {
        List<Field> flat = new ArrayList<>();
        String[] leaves = {"int64", "int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "halffloat", "float",
            "double", "bool", "string", "large_string", "binary", "large_binary", "date32:day", "timestamp:us:-",
            "timestamp:ns:UTC", "decimal:128:20:4", "fixed_size_list:float:128"};
        int id = 0;
        for (String lt : leaves) {
            flat.add(field(id++, -1, "c" + id, lt));
        }
        int li = id++;
        flat.add(field(li, -1, "li32", "list"));
        flat.add(field(id++, li, "item", "int32"));
        int ll = id++;
        flat.add(field(ll, -1, "lstr", "large_list"));
        flat.add(field(id++, ll, "item", "string"));
        int st = id++;
        flat.add(field(st, -1, "st", "struct"));
        flat.add(field(id++, st, "a", "int32"));
        flat.add(field(id++, st, "b", "string"));
        LanceSchema s = LanceSchema.fromProto(flat, Map.of());
        Schema arrow = ArrowSchemas.toArrow(s);
        var f = arrow.getFields();
        assertThat(f.get(7).getType()).isEqualTo(new ArrowType.Int(64, false));
        assertThat(f.get(8).getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.HALF));
        assertThat(f.get(13).getType()).isEqualTo(ArrowType.LargeUtf8.INSTANCE);
        assertThat(f.get(15).getType()).isEqualTo(ArrowType.LargeBinary.INSTANCE);
        assertThat(f.get(16).getType()).isEqualTo(new ArrowType.Date(DateUnit.DAY));
        assertThat(f.get(17).getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.MICROSECOND, null));
        assertThat(f.get(18).getType()).isEqualTo(new ArrowType.Timestamp(TimeUnit.NANOSECOND, "UTC"));
        assertThat(f.get(19).getType()).isEqualTo(new ArrowType.Decimal(20, 4, 128));
        assertThat(f.get(20).getType()).isEqualTo(new ArrowType.FixedSizeList(128));
        assertThat(f.get(20).getChildren().get(0).getType()).isEqualTo(new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE));
        assertThat(f.get(21).getType()).isEqualTo(ArrowType.List.INSTANCE);
        assertThat(f.get(21).getChildren().get(0).getType()).isEqualTo(new ArrowType.Int(32, true));
        assertThat(f.get(22).getType()).isEqualTo(ArrowType.LargeList.INSTANCE);
        assertThat(f.get(23).getType()).isEqualTo(ArrowType.Struct.INSTANCE);
        assertThat(f.get(23).getChildren()).extracting(org.apache.arrow.vector.types.pojo.Field::getName).containsExactly("a", "b");
        // and back: the same logical type names and pre-order ids
        LanceSchema back = ArrowSchemas.fromArrow(arrow);
        assertThat(back.toProto()).extracting(Field::getLogicalType).containsExactlyElementsOf(flat.stream().map(Field::getLogicalType).toList());
        assertThat(back.toProto()).extracting(Field::getParentId).containsExactlyElementsOf(flat.stream().map(Field::getParentId).toList());
        assertThat(back.maxFieldId()).isEqualTo(s.maxFieldId());
    }

    @Test
    void moreLogicalTypesRoundTrip() {
        for (String lt : new String[] {"null", "date64:ms", "time32:s", "time32:ms", "time64:us", "time64:ns", "duration:ns",
                "timestamp:ms:+05:30", "decimal:256:40:2", "fixed_size_binary:16", "fixed_size_list:lance.bfloat16:256",
                "fixed_size_list:timestamp:us:-:4", "dict:string:int16:false"}) {
            LanceSchema s = LanceSchema.fromProto(List.of(field(0, -1, "x", lt)), Map.of());
            var arrowField = ArrowSchemas.toArrow(s).getFields().get(0);
            assertThat(ArrowSchemas.logicalType(arrowField)).as(lt).isEqualTo(lt);
        }
    }

    @Test
    void unknownTypesAreRefused() {
        for (String lt : new String[] {"time32:us", "int128", "decimal:64:1:1", "timestamp:xs:-", "fixed_size_list:float:x", ""}) {
            LanceSchema s = LanceSchema.fromProto(List.of(field(0, -1, "x", lt)), Map.of());
            assertThatThrownBy(() -> ArrowSchemas.toArrow(s)).as(lt).isInstanceOf(UnsupportedFeatureException.class);
        }
    }

    @Test
    void childBeforeParentOrDuplicateIdIsRefused() {
        assertThatThrownBy(() -> LanceSchema.fromProto(List.of(field(1, 0, "a", "int32"), field(0, -1, "s", "struct")), Map.of()))
                .isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("before its parent");
        assertThatThrownBy(() -> LanceSchema.fromProto(List.of(field(0, -1, "a", "int32"), field(0, -1, "b", "int32")), Map.of()))
                .isInstanceOf(InvalidTableMetadataException.class).hasMessageContaining("Duplicate schema field id 0");
    }

    static Field field(int id, int parent, String name, String lt) {
        return Field.newBuilder().setId(id).setParentId(parent).setName(name).setLogicalType(lt).setNullable(true).build();
    }
}
