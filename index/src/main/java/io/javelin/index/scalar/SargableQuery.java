package io.javelin.index.scalar;

import java.util.List;

/**
 * Index-answerable predicates on one column (Lance's {@code SargableQuery}). Bounds are values of the
 * column's {@link ScalarKind}; a null bound means unbounded. SQL semantics: {@code Equals(null)}
 * and comparisons never match null rows; {@link IsNull} does.
 */
public sealed interface SargableQuery {

    record Equals(Object value) implements SargableQuery {
    }

    /** {@code lo (<|<=) x (<|<=) hi}; null bound = unbounded. */
    record Range(Object lo, boolean loInclusive, Object hi, boolean hiInclusive) implements SargableQuery {
    }

    record IsIn(List<Object> values) implements SargableQuery {
    }

    record IsNull() implements SargableQuery {
    }

    /** Does a non-null {@code v} satisfy the query? (IsNull is handled by callers.) */
    static boolean matches(SargableQuery q, ScalarKind kind, Object v) {
        if (v == null) {
            return q instanceof IsNull;
        }
        return switch (q) {
            case Equals e -> e.value() != null && kind.compare(v, e.value()) == 0;
            case Range r -> (r.lo() == null || (r.loInclusive() ? kind.compare(v, r.lo()) >= 0 : kind.compare(v, r.lo()) > 0))
                    && (r.hi() == null || (r.hiInclusive() ? kind.compare(v, r.hi()) <= 0 : kind.compare(v, r.hi()) < 0));
            case IsIn in -> {
                for (Object x : in.values()) {
                    if (x != null && kind.compare(v, x) == 0) {
                        yield true;
                    }
                }
                yield false;
            }
            case IsNull n -> false;
        };
    }

    /** Coerces literals to the kind's Java types. */
    static SargableQuery coerce(SargableQuery q, ScalarKind kind) {
        return switch (q) {
            case Equals e -> new Equals(kind.coerce(e.value()));
            case Range r -> new Range(kind.coerce(r.lo()), r.loInclusive(), kind.coerce(r.hi()), r.hiInclusive());
            case IsIn in -> new IsIn(in.values().stream().map(kind::coerce).toList());
            case IsNull n -> n;
        };
    }
}
