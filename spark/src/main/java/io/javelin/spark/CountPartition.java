package io.javelin.spark;

import org.apache.spark.sql.connector.read.InputPartition;

/** The answer of a {@code COUNT(*)} pushed into the scan, computed on the driver from the manifest. */
record CountPartition(long count) implements InputPartition {
}
