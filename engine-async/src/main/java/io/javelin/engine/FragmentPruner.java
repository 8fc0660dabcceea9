package io.javelin.engine;

import io.javelin.engine.filter.Predicate;
import io.javelin.tx.FragmentInfo;

/**
 * Statistics pushdown hook: decides from metadata alone whether a fragment may hold rows matching a
 * filter. Must be conservative: answering {@code false} for a fragment with a matching row changes
 * results. The reader exposes no column statistics yet, so the default keeps every fragment; page-level
 * zone maps plug in here when the encoding layer surfaces them.
 */
@FunctionalInterface
public interface FragmentPruner {

    FragmentPruner KEEP_ALL = (fragment, predicate) -> true;

    boolean mayMatch(FragmentInfo fragment, Predicate predicate);
}
