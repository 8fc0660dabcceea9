package io.javelin.tx.tree;

/**
 * Writer policy of the fragment tree. None of it is part of the format; readers accept any shape
 * that satisfies the spec.
 *
 * @param maxLeafBytes      target encoded leaf size (a single record may exceed it)
 * @param maxNodeBytes      target encoded size of an interior (children + buffer)
 * @param bufferBytes       a node's buffer above this size is drained to its children
 * @param fanOut            maximum children of the root and of interiors (at least 3)
 * @param inlineRootBytes   publish the root inline when the encoded descriptor fits (0 = never)
 * @param suffixBytes       keep new mutations in mutations_since_root up to this encoded size (0 = never)
 * @param leafParallelism   concurrent leaf reads and writes
 */
public record TreeConfig(int maxLeafBytes, int maxNodeBytes, int bufferBytes, int fanOut, int inlineRootBytes,
        int suffixBytes, int leafParallelism) {

    public TreeConfig {
        if (fanOut < 3) {
            throw new IllegalArgumentException("fanOut must be at least 3 (two-child interiors cannot split 3 children): " + fanOut);
        }
        if (maxLeafBytes <= 0 || maxNodeBytes <= 0 || bufferBytes <= 0 || leafParallelism <= 0) {
            throw new IllegalArgumentException("sizes and parallelism must be positive");
        }
        if (inlineRootBytes < 0 || suffixBytes < 0) {
            throw new IllegalArgumentException("budgets must not be negative");
        }
    }

    /** Upstream's defaults: 1 MiB leaves and nodes, 256 KiB buffers, fan-out 16, 64 KiB inline, 32 KiB suffix. */
    public static TreeConfig defaults() {
        return new TreeConfig(1 << 20, 1 << 20, 256 << 10, 16, 64 << 10, 32 << 10, 8);
    }

    public TreeConfig withFanOut(int f) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, bufferBytes, f, inlineRootBytes, suffixBytes, leafParallelism);
    }

    public TreeConfig withLeafBytes(int b) {
        return new TreeConfig(b, maxNodeBytes, bufferBytes, fanOut, inlineRootBytes, suffixBytes, leafParallelism);
    }

    public TreeConfig withBufferBytes(int b) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, b, fanOut, inlineRootBytes, suffixBytes, leafParallelism);
    }

    public TreeConfig withInlineRootBytes(int b) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, bufferBytes, fanOut, b, suffixBytes, leafParallelism);
    }

    public TreeConfig withSuffixBytes(int b) {
        return new TreeConfig(maxLeafBytes, maxNodeBytes, bufferBytes, fanOut, inlineRootBytes, b, leafParallelism);
    }

    /** Leaves below this size are merged with small neighbours when rewritten. */
    int leafMergeBytes() {
        return maxLeafBytes / 4;
    }
}
