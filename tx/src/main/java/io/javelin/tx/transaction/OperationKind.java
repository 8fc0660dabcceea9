package io.javelin.tx.transaction;

import io.javelin.tx.pb.Transaction;

/** The operation of a transaction (Lance's {@code Operation} tags 100-115), plus UNKNOWN for anything newer. */
public enum OperationKind {
    APPEND, DELETE, OVERWRITE, CREATE_INDEX, REWRITE, MERGE, RESTORE, RESERVE_FRAGMENTS, UPDATE, PROJECT,
    UPDATE_CONFIG, DATA_REPLACEMENT, UPDATE_MEM_WAL_STATE, CLONE, UPDATE_BASES, DATA_OVERLAY,
    /** An operation tag this engine does not know (a newer Lance): incompatible with everything. */
    UNKNOWN;

    public static OperationKind of(Transaction t) {
        return switch (t.getOperationCase()) {
            case APPEND -> APPEND;
            case DELETE -> DELETE;
            case OVERWRITE -> OVERWRITE;
            case CREATE_INDEX -> CREATE_INDEX;
            case REWRITE -> REWRITE;
            case MERGE -> MERGE;
            case RESTORE -> RESTORE;
            case RESERVE_FRAGMENTS -> RESERVE_FRAGMENTS;
            case UPDATE -> UPDATE;
            case PROJECT -> PROJECT;
            case UPDATE_CONFIG -> UPDATE_CONFIG;
            case DATA_REPLACEMENT -> DATA_REPLACEMENT;
            case UPDATE_MEM_WAL_STATE -> UPDATE_MEM_WAL_STATE;
            case CLONE -> CLONE;
            case UPDATE_BASES -> UPDATE_BASES;
            case DATA_OVERLAY -> DATA_OVERLAY;
            case OPERATION_NOT_SET -> UNKNOWN;
        };
    }
}
