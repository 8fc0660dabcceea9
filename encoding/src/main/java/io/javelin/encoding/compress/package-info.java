/**
 * Buffer codecs of the Lance format: the general-purpose compressors with Lance's exact framing
 * ({@link io.javelin.encoding.compress.BufferCompression}: zstd with a u64 size prefix or a legacy
 * bare frame, lz4 block with a u32 size prefix) and FSST string compression
 * ({@link io.javelin.encoding.compress.FsstSymbolTable} for the 2312-byte table and decoding,
 * {@link io.javelin.encoding.compress.FsstEncoder} for training and encoding).
 *
 * <p>Plain synchronous code, pure Java (aircompressor-v3's Java implementations). Every declared size
 * is checked against a caller-given limit before anything is allocated, and malformed input of any
 * kind surfaces as {@link io.javelin.encoding.compress.CodecException} (codec name + input offset),
 * which the reader maps to {@code CorruptFileException} with the file and buffer position.
 */
package io.javelin.encoding.compress;
