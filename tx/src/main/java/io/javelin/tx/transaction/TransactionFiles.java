package io.javelin.tx.transaction;

import com.google.protobuf.InvalidProtocolBufferException;
import io.javelin.tx.CorruptFileException;
import io.javelin.tx.InvalidTableMetadataException;
import io.javelin.tx.manifest.SafePaths;
import io.javelin.tx.pb.Transaction;
import io.javelin.tx.store.ManifestStore;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;

/**
 * {@code _transactions/{read_version}-{uuid}.txn}: the raw Transaction protobuf, no length prefix, no
 * footer. The uuid ends up in a path, so it must be a hyphenated lowercase UUID and nothing else.
 */
public final class TransactionFiles {

    public static final String DIR = "_transactions/";
    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    private TransactionFiles() {
    }

    /** The file name ({@code Manifest.transaction_file}) of a transaction. */
    public static String fileName(Transaction t) {
        checkUuid(t.getUuid());
        return Long.toUnsignedString(t.getReadVersion()) + "-" + t.getUuid() + ".txn";
    }

    public static String path(Transaction t) {
        return DIR + fileName(t);
    }

    public static void checkUuid(String uuid) {
        if (!UUID.matcher(uuid).matches()) {
            throw new InvalidTableMetadataException("Transaction uuid is not a lowercase hyphenated UUID: " + uuid);
        }
    }

    public static Mono<Void> write(ManifestStore store, Transaction t) {
        return Mono.defer(() -> store.put(path(t), t.toByteArray()));
    }

    /** Reads a transaction by its {@code transaction_file} name (relative to {@code _transactions/}). */
    public static Mono<Transaction> read(ManifestStore store, String fileName) {
        return Mono.defer(() -> {
            String path = DIR + SafePaths.checkFileName("Transaction file", fileName);
            return store.read(path).map(b -> decode(path, b));
        });
    }

    public static Transaction decode(String path, byte[] bytes) {
        try {
            Transaction t = Transaction.parseFrom(bytes);
            if (t.getOperationCase() == Transaction.OperationCase.OPERATION_NOT_SET && !t.getUnknownFields().asMap().isEmpty()) {
                return t; // a newer operation tag: kept as UNKNOWN so conflict checks refuse it
            }
            if (t.getOperationCase() == Transaction.OperationCase.OPERATION_NOT_SET) {
                throw new CorruptFileException(path, "Transaction message did not contain an operation");
            }
            return t;
        } catch (InvalidProtocolBufferException e) {
            throw new CorruptFileException(path, "Invalid transaction protobuf: " + e.getMessage(), e);
        }
    }
}
