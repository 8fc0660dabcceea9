package io.javelin.encoding.writer;

import com.google.protobuf.Message;
import java.util.List;

/**
 * One encoded page: its buffers (written in order, each padded to 64 bytes), the page message
 * (PageLayout for 2.1+, ArrayEncoding for 2.0), its row count and first row number.
 */
public record EncodedPage(List<Bytes> buffers, Message layout, long numRows, long rowNumber) {
}
