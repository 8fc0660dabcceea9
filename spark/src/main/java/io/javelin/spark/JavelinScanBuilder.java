package io.javelin.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.aggregate.AggregateFunc;
import org.apache.spark.sql.connector.expressions.aggregate.Aggregation;
import org.apache.spark.sql.connector.expressions.aggregate.CountStar;
import org.apache.spark.sql.connector.expressions.filter.Predicate;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.read.SupportsPushDownAggregates;
import org.apache.spark.sql.connector.read.SupportsPushDownLimit;
import org.apache.spark.sql.connector.read.SupportsPushDownRequiredColumns;
import org.apache.spark.sql.connector.read.SupportsPushDownTopN;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.NullOrdering;
import org.apache.spark.sql.connector.expressions.SortDirection;
import org.apache.spark.sql.connector.expressions.SortOrder;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.connector.read.SupportsPushDownV2Filters;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * Collects what Spark pushes into a scan: the required columns (nested fields included), the predicates
 * Javelin evaluates (those not exact stay with Spark too), a per-partition limit and {@code COUNT(*)}.
 */
final class JavelinScanBuilder implements ScanBuilder, SupportsPushDownRequiredColumns, SupportsPushDownV2Filters,
        SupportsPushDownLimit, SupportsPushDownTopN, SupportsPushDownAggregates {

    private final JavelinTable table;
    private final JavelinOptions options;
    private StructType required;
    private final List<Predicate> pushed = new ArrayList<>();
    private final List<String> filters = new ArrayList<>();
    private long limit = -1;
    private boolean countStar;
    private List<String> orderBy;
    /** Non-null for the scan of a copy-on-write operation: whole fragments are read, filters only prune them. */
    private final CopyOnWriteOperation operation;
    private final List<String> groupFilters = new ArrayList<>();

    JavelinScanBuilder(JavelinTable table, JavelinOptions options) {
        this(table, options, null);
    }

    JavelinScanBuilder(JavelinTable table, JavelinOptions options, CopyOnWriteOperation operation) {
        this.operation = operation;
        this.table = table;
        this.options = options;
        this.required = table.schema();
    }

    @Override
    public Predicate[] pushPredicates(Predicate[] predicates) {
        FilterTranslator tr = new FilterTranslator(table.schema());
        if (operation != null) {
            // every row of a candidate fragment is read; an exact predicate only tells which fragments can match
            for (Predicate p : predicates) {
                tr.translate(p).filter(x -> x.exact() && compiles(x.sql())).ifPresent(t -> {
                    pushed.add(p);
                    groupFilters.add(t.sql());
                });
            }
            return predicates;
        }
        List<Predicate> residual = new ArrayList<>();
        for (Predicate p : predicates) {
            Optional<FilterTranslator.Translation> t = tr.translate(p).filter(x -> compiles(x.sql()));
            if (t.isEmpty()) {
                residual.add(p);
                continue;
            }
            pushed.add(p);
            filters.add(t.get().sql());
            if (!t.get().exact()) {
                residual.add(p);
            }
        }
        return residual.toArray(Predicate[]::new);
    }

    /** Javelin checks names, types and functions when it compiles a filter: what it refuses stays with Spark. */
    private boolean compiles(String sql) {
        try {
            io.javelin.engine.filter.Predicate.compile(sql, table.arrowSchema);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public Predicate[] pushedPredicates() {
        return pushed.toArray(Predicate[]::new);
    }

    @Override
    public boolean pushLimit(int n) {
        if (operation != null) {
            return false;
        }
        limit = n;
        return true;
    }

    /**
     * {@code ORDER BY ... LIMIT n}: each partition keeps its own first n rows (Javelin's streaming top-k), Spark
     * sorts those. Only on top-level integer and date columns, whose order and NULL placement are the same in
     * both engines; anything else is left to Spark.
     */
    @Override
    public boolean pushTopN(SortOrder[] orders, int n) {
        if (operation != null || orders.length == 0) {
            return false;
        }
        List<String> clauses = new ArrayList<>();
        for (SortOrder o : orders) {
            if (!(o.expression() instanceof NamedReference ref) || ref.fieldNames().length != 1) {
                return false;
            }
            String name = ref.fieldNames()[0];
            if (!java.util.Arrays.asList(table.schema().fieldNames()).contains(name) || !exactOrder(table.schema().apply(name).dataType())) {
                return false;
            }
            clauses.add("`" + name.replace("`", "``") + "`" + (o.direction() == SortDirection.DESCENDING ? " DESC" : " ASC")
                    + (o.nullOrdering() == NullOrdering.NULLS_FIRST ? " NULLS FIRST" : " NULLS LAST"));
        }
        orderBy = List.copyOf(clauses);
        limit = n;
        return true;
    }

    private static boolean exactOrder(DataType t) {
        return t instanceof ByteType || t instanceof ShortType || t instanceof IntegerType || t instanceof LongType || t instanceof DateType;
    }

    @Override
    public boolean isPartiallyPushed() {
        return true; // each partition stops at n rows; Spark keeps the global limit
    }

    @Override
    public boolean pushAggregation(Aggregation aggregation) {
        if (operation != null || !supportCompletePushDown(aggregation)) {
            return false;
        }
        countStar = true;
        return true;
    }

    /** {@code COUNT(*)} without grouping or filters is the manifest's live row count: no data is read. */
    @Override
    public boolean supportCompletePushDown(Aggregation aggregation) {
        if (aggregation.groupByExpressions().length != 0 || !filters.isEmpty() || aggregation.aggregateExpressions().length != 1) {
            return false;
        }
        AggregateFunc f = aggregation.aggregateExpressions()[0];
        return f instanceof CountStar;
    }

    @Override
    public void pruneColumns(StructType requiredSchema) {
        this.required = requiredSchema;
    }

    @Override
    public Scan build() {
        List<String> columns = new ArrayList<>();
        for (StructField f : required.fields()) {
            columns.addAll(ColumnPaths.of(f, table.schema().apply(f.name())));
        }
        return new JavelinScan(table, options, columns, List.copyOf(filters), pushed.stream().map(Predicate::toString).toList(),
                limit, orderBy, countStar, operation, List.copyOf(groupFilters));
    }
}
