package io.javelin.index.fts;

/** File and column names of Lance's partitioned inverted index (one segment directory). */
public final class InvertedIndexFiles {

    public static final String METADATA = "metadata.lance";
    public static final String TOKEN = "_token";
    public static final String TOKEN_ID = "_token_id";
    public static final String TOKEN_FST = "_token_fst_bytes";
    public static final String TOKEN_NEXT_ID = "_token_next_id";
    public static final String TOKEN_TOTAL_LENGTH = "_token_total_length";
    public static final String ROW_ID = "_rowid";
    public static final String NUM_TOKENS = "_num_tokens";
    public static final String POSTING = "_posting";
    public static final String MAX_SCORE = "_max_score";
    public static final String LENGTH = "_length";
    public static final String POSITION = "_position";
    public static final String DELETED_FRAGMENTS = "deleted_fragments";

    private InvertedIndexFiles() {
    }

    public static String tokens(long partition) {
        return "part_" + partition + "_tokens.lance";
    }

    public static String docs(long partition) {
        return "part_" + partition + "_docs.lance";
    }

    public static String invert(long partition) {
        return "part_" + partition + "_invert.lance";
    }
}
