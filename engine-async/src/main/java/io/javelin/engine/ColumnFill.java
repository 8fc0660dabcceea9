package io.javelin.engine;

import io.javelin.tx.FragmentInfo;
import io.javelin.tx.Snapshot;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.Manifest;
import io.javelin.tx.transaction.Transactions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Column backfill in batches of fragments (Lance's "all-null column replaced with real data"): data
 * for <em>existing</em> columns is written for a few named fragments and committed as one
 * {@code DataReplacement} naming only them. Unlike a Merge (whose transaction carries every
 * fragment), the commit is O(fragments named): on a tree table it resolves and rewrites only their
 * records (one {@code add_data_file} or {@code replace_data_file} action each), so a whole column
 * can be filled in many small commits.
 *
 * <p>Per fragment the new file either fills the columns (no data file of the fragment lists any of
 * their field ids: the columns read as NULL there until now) or replaces the one data file whose
 * fields are exactly the columns' field ids. Anything else (columns spread over files that also hold
 * other columns) is refused with a typed error.
 */
final class ColumnFill {

    private ColumnFill() {
    }

    /** Worker side: one data file per fragment of {@code fragmentIds} (in that order), nothing committed. */
    static Mono<List<FragmentMetadata>> write(Dataset ds, List<Long> fragmentIds, List<String> columns,
            Flux<VectorSchemaRoot> data) {
        return Mono.defer(() -> {
            Manifest m = ds.snapshot().manifestFile().manifest();
            List<io.javelin.encoding.pb.file.Field> fields = fields(ds, m, columns);
            Schema arrow = arrowSchema(ds, columns);
            List<Integer> ids = fields.stream().map(io.javelin.encoding.pb.file.Field::getId).toList();
            if (new HashSet<>(fragmentIds).size() != fragmentIds.size()) {
                throw SchemaEvolution.error(ds, "Fragment ids must be distinct: " + fragmentIds);
            }
            return ds.snapshot().catalog().resolve(fragmentIds).flatMap(found -> {
                List<FragmentInfo> frags = new ArrayList<>();
                for (Long id : fragmentIds) {
                    FragmentInfo f = found.get(id);
                    if (f == null) {
                        throw SchemaEvolution.error(ds, "Fragment " + id + " does not exist in this version");
                    }
                    slot(ds, f.fragment(), ids);
                    frags.add(f);
                }
                return SchemaEvolution.writeColumnFiles(ds, frags, data, arrow, fields).map(files -> frags.stream()
                        .map(f -> new FragmentMetadata(f.fragment().toBuilder().addFiles(files.get(f.id())).build()))
                        .toList());
            });
        });
    }

    /**
     * Committer side: one DataReplacement of the workers' files (the last file of each written
     * fragment). A fragment whose data files changed since they were written is refused.
     */
    static Mono<Snapshot> commit(Dataset ds, List<FragmentMetadata> written) {
        return Mono.defer(() -> {
            if (written.isEmpty()) {
                throw SchemaEvolution.error(ds, "No fragments to fill");
            }
            Map<Long, DataFragment> byId = new LinkedHashMap<>();
            for (FragmentMetadata w : written) {
                if (w.fragment().getFilesCount() == 0 || byId.put(w.fragment().getId(), w.fragment()) != null) {
                    throw SchemaEvolution.error(ds, "Fragment " + w.fragment().getId()
                            + " is listed twice or carries no new data file");
                }
            }
            Set<Integer> schemaIds = new HashSet<>();
            ds.snapshot().manifestFile().manifest().getFieldsList().forEach(f -> schemaIds.add(f.getId()));
            return ds.snapshot().catalog().resolve(byId.keySet()).flatMap(current -> {
                Map<Long, DataFile> files = new LinkedHashMap<>();
                for (DataFragment w : byId.values()) {
                    FragmentInfo cur = current.get(w.getId());
                    int have = w.getFilesCount() - 1;
                    if (cur == null || cur.fragment().getFilesCount() != have
                            || !w.getFilesList().subList(0, have).equals(cur.fragment().getFilesList())) {
                        throw SchemaEvolution.error(ds, "Fragment " + w.getId()
                                + " changed since its column data was written; write it again");
                    }
                    DataFile df = w.getFiles(have);
                    if (df.getFieldsCount() == 0 || !schemaIds.containsAll(df.getFieldsList())) {
                        throw SchemaEvolution.error(ds, "Fragment " + w.getId() + ": new data file has fields "
                                + df.getFieldsList() + ", not columns of this version");
                    }
                    slot(ds, cur.fragment(), df.getFieldsList());
                    files.put(w.getId(), df);
                }
                return Writes.commit(ds.handle(), Transactions.dataReplacement(ds.version(), files));
            });
        });
    }

    /** Checks that {@code ids} are either absent from every file of {@code f} or exactly one file's fields. */
    private static void slot(Dataset ds, DataFragment f, List<Integer> ids) {
        int exact = 0;
        for (DataFile df : f.getFilesList()) {
            if (df.getFieldsList().equals(ids)) {
                exact++;
            } else if (df.getFieldsList().stream().anyMatch(ids::contains)) {
                throw SchemaEvolution.error(ds, "Fragment " + f.getId() + " stores columns " + ids
                        + " together with other columns in " + df.getPath() + "; they cannot be replaced alone");
            }
        }
        if (exact > 1) {
            throw SchemaEvolution.error(ds, "Fragment " + f.getId() + " has " + exact + " data files for fields " + ids);
        }
    }

    /** The schema fields (with their subtrees, in schema order) of the named top-level columns. */
    private static List<io.javelin.encoding.pb.file.Field> fields(Dataset ds, Manifest m, List<String> columns) {
        if (columns.isEmpty()) {
            throw SchemaEvolution.error(ds, "No columns to fill");
        }
        Set<Integer> wanted = new HashSet<>();
        for (String c : columns) {
            io.javelin.encoding.pb.file.Field f = SchemaEvolution.byPath(ds, m, c);
            if (f.getParentId() != -1) {
                throw SchemaEvolution.error(ds, "Only top-level columns can be filled: " + c);
            }
            if (!wanted.add(f.getId())) {
                throw SchemaEvolution.error(ds, "Column " + c + " listed twice");
            }
        }
        // the manifest lists parents before children: one pass collects every subtree
        List<io.javelin.encoding.pb.file.Field> out = new ArrayList<>();
        for (io.javelin.encoding.pb.file.Field f : m.getFieldsList()) {
            if (wanted.contains(f.getId()) || wanted.contains(f.getParentId())) {
                wanted.add(f.getId());
                out.add(f);
            }
        }
        // file order follows the requested column order (top-level), subtrees kept together
        List<io.javelin.encoding.pb.file.Field> ordered = new ArrayList<>();
        for (String c : columns) {
            int top = SchemaEvolution.byPath(ds, m, c).getId();
            Set<Integer> sub = new HashSet<>(Set.of(top));
            for (io.javelin.encoding.pb.file.Field f : out) {
                if (sub.contains(f.getId()) || sub.contains(f.getParentId())) {
                    sub.add(f.getId());
                    ordered.add(f);
                }
            }
        }
        return ordered;
    }

    private static Schema arrowSchema(Dataset ds, List<String> columns) {
        List<Field> out = new ArrayList<>();
        for (String c : columns) {
            out.add(ds.schema().findField(c));
        }
        return new Schema(out);
    }
}
