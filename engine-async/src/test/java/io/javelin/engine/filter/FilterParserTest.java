package io.javelin.engine.filter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FilterParserTest {

    @Test
    void precedenceOfAndOverOr() {
        Expr e = FilterParser.parse("a = 1 OR b = 2 AND c = 3");
        assertThat(e).isInstanceOf(Expr.Or.class);
        assertThat(((Expr.Or) e).right()).isInstanceOf(Expr.And.class);
    }

    @Test
    void arithmeticBindsTighterThanComparison() {
        Expr e = FilterParser.parse("a + 2 * 3 > 10");
        Expr.Compare c = (Expr.Compare) e;
        Expr.Arithmetic add = (Expr.Arithmetic) c.left();
        assertThat(add.op()).isEqualTo(Expr.ArithmeticOp.ADD);
        assertThat(((Expr.Arithmetic) add.right()).op()).isEqualTo(Expr.ArithmeticOp.MULTIPLY);
    }

    @Test
    void lanceDocumentationExamplesParse() {
        FilterParser.parse("((label IN [10, 20]) AND (note['email'] IS NOT NULL)) OR NOT note['created']");
        FilterParser.parse("`CUBE` = 10 AND `column name with space` IS NOT NULL AND `nested with space`.`inner with space` < 2");
        FilterParser.parse("date_col = date '2021-01-01' and timestamp_col = timestamp '2021-01-01 00:00:00' "
                + "and decimal_col = decimal(8,3) '1.000'");
        FilterParser.parse("ts > timestamp(3) '2021-01-01 00:00:00.123'");
        FilterParser.parse("CAST(x AS int unsigned) BETWEEN 1 AND 5 AND name NOT LIKE 'ab%' AND y NOT IN (1, 2)");
        FilterParser.parse("flag IS NOT TRUE AND other IS FALSE AND -x < -3.5e2");
    }

    @Test
    void nestedFieldAccessBothForms() {
        Expr.Column c1 = (Expr.Column) ((Expr.IsNull) FilterParser.parse("st.a IS NULL")).operand();
        Expr.Column c2 = (Expr.Column) ((Expr.IsNull) FilterParser.parse("st['a'] IS NULL")).operand();
        assertThat(c1.path()).isEqualTo(List.of("st", "a"));
        assertThat(c2.path()).isEqualTo(c1.path());
    }

    @Test
    void stringEscapesAndQuotedIdentifiers() {
        Expr.Compare c = (Expr.Compare) FilterParser.parse("`select` = 'it''s'");
        assertThat(((Expr.Column) c.left()).path()).containsExactly("select");
        assertThat(((Expr.Literal) c.right()).value()).isEqualTo("it's");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "a =|3|unexpected end of expression",
        "a = 1 AND|9|unexpected end of expression",
        "(a = 1|6|expected ')'",
        "a = 'abc|4|unterminated string literal",
        "a IN ()|6|IN list is empty",
        "a BETWEEN 1 OR 2|12|expected AND in BETWEEN",
        "a LIKE 5|7|LIKE needs a string pattern",
        "a IS MAYBE|5|expected NULL, TRUE or FALSE",
        "CAST(a AS blob)|10|unknown type blob",
        "a = 1 b|6|unexpected 'b'",
        "a # 1|2|unexpected character '#'",
        "and = 1|0|unexpected keyword AND",
        "timestamp(4) '2020-01-01' > t|10|timestamp precision must be 0, 3, 6 or 9",
        "12abc = 1|2|unexpected character 'a' after number",
    })
    void errorsCarryPositions(String filter, int position, String message) {
        assertThatThrownBy(() -> FilterParser.parse(filter))
                .isInstanceOfSatisfying(FilterParseException.class, e -> {
                    assertThat(e.position()).isEqualTo(position);
                    assertThat(e.getMessage()).contains(message).contains("^");
                });
    }

    @Test
    void blankFilterIsAnError() {
        assertThatThrownBy(() -> FilterParser.parse("  ")).isInstanceOf(FilterParseException.class)
                .hasMessageContaining("empty filter");
    }
}
