package io.javelin.spark;

import java.util.List;
import org.apache.spark.sql.connector.write.WriterCommitMessage;

/** What one task wrote: its fragments as Lance's fragment JSON (uncommitted until the driver commits). */
record JavelinCommitMessage(List<String> fragments) implements WriterCommitMessage {
    JavelinCommitMessage {
        fragments = List.copyOf(fragments);
    }
}
