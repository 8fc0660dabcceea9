package io.javelin.encoding.writer.v21;

/** One mini-block chunk of values: its buffers, its log2 value count (0 for the last chunk) and value count. */
record Chunk(byte[][] buffers, int log, int numValues) {
}
