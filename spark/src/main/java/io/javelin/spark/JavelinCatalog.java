package io.javelin.spark;

import io.javelin.engine.Dataset;
import io.javelin.engine.VersionInfo;
import io.javelin.engine.namespace.CreateMode;
import io.javelin.engine.namespace.DirectoryNamespace;
import io.javelin.engine.namespace.LanceNamespace;
import io.javelin.engine.namespace.RestNamespaceClient;
import io.javelin.engine.namespace.NamespaceErrorCode;
import io.javelin.engine.namespace.NamespaceException;
import io.javelin.engine.namespace.ObjectId;
import io.javelin.engine.namespace.TableInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Column;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;
import reactor.core.publisher.Flux;

/**
 * A Spark catalog over a Lance directory namespace ({@code spark.sql.catalog.NAME=io.javelin.spark.JavelinCatalog},
 * {@code spark.sql.catalog.NAME.warehouse=URI}, other catalog options are storage options with Lance's names).
 * The layout is lance-core's {@code DirectoryNamespace}: {@code NAME.t} is {@code {warehouse}/t.lance},
 * {@code NAME.db.t} a table of namespace {@code db}, so lance-core and lance-spark see the same tables.
 * With {@code spark.sql.catalog.NAME.uri=http://...} instead, the catalog is a Lance REST namespace
 * ({@code javelin serve} or any server of the spec) and data is read and written at the locations it reports.
 */
public class JavelinCatalog implements TableCatalog, SupportsNamespaces {

    private String name;
    private LanceNamespace namespace;
    private JavelinOptions options;

    @Override
    public void initialize(String name, CaseInsensitiveStringMap opts) {
        this.name = name;
        String warehouse = opts.get(JavelinOptions.WAREHOUSE);
        String rest = opts.get(JavelinOptions.URI);
        if ((warehouse == null || warehouse.isBlank()) == (rest == null || rest.isBlank())) {
            throw new JavelinSparkException("Catalog '" + name + "' needs either spark.sql.catalog." + name
                    + ".warehouse (a directory or store URI) or spark.sql.catalog." + name + ".uri (a REST namespace)");
        }
        this.options = JavelinOptions.parse(opts.asCaseSensitiveMap());
        this.namespace = warehouse != null && !warehouse.isBlank()
                ? DirectoryNamespace.open(warehouse, options.storage())
                : RestNamespaceClient.connect(rest);
    }

    @Override
    public String name() {
        return name;
    }

    /** The namespace this catalog sits on: a directory in lance-core's layout, or a REST namespace. */
    public LanceNamespace namespace() {
        return namespace;
    }

    static ObjectId id(Identifier ident) {
        List<String> parts = new ArrayList<>(Arrays.asList(ident.namespace()));
        parts.add(ident.name());
        return new ObjectId(parts);
    }

    static ObjectId id(String[] ns) {
        return new ObjectId(Arrays.asList(ns));
    }

    // ------------------------------------------------------------------ tables

    @Override
    public Identifier[] listTables(String[] ns) throws NoSuchNamespaceException {
        try {
            return namespace.listTables(id(ns), false).block().stream().map(t -> Identifier.of(ns, t)).toArray(Identifier[]::new);
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(ns);
            }
            throw e;
        }
    }

    private TableInfo describe(Identifier ident) throws NoSuchTableException {
        try {
            TableInfo info = namespace.describeTable(id(ident)).block();
            if (info.onlyDeclared()) {
                throw new NoSuchTableException(ident);
            }
            return info;
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.TABLE_NOT_FOUND || e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                throw new NoSuchTableException(ident);
            }
            throw e;
        }
    }

    @Override
    public Table loadTable(Identifier ident) throws NoSuchTableException {
        return JavelinTable.load(tableName(ident), describe(ident).location(), options.latest(), null);
    }

    /** {@code VERSION AS OF n} (a number) or {@code VERSION AS OF 'tag'}. */
    @Override
    public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
        String location = describe(ident).location();
        JavelinOptions at;
        try {
            at = options.atVersion(Long.parseLong(version.trim()));
        } catch (NumberFormatException e) {
            at = options.atTag(version);
        }
        return JavelinTable.load(tableName(ident), location, at, null);
    }

    /** {@code TIMESTAMP AS OF t}: the newest version committed at or before {@code t} (microseconds). */
    @Override
    public Table loadTable(Identifier ident, long timestampMicros) throws NoSuchTableException {
        String location = describe(ident).location();
        Instant at = Instant.EPOCH.plusNanos(Math.multiplyExact(timestampMicros, 1000L));
        List<VersionInfo> versions;
        try (Dataset ds = Dataset.open(location, options.storage()).block()) {
            versions = ds.versions().block();
        }
        long chosen = -1;
        for (VersionInfo v : versions) {
            if (!v.timestamp().isAfter(at) && v.version() > chosen) {
                chosen = v.version();
            }
        }
        if (chosen < 0) {
            throw new JavelinSparkException("Table " + ident + " has no version at or before " + at);
        }
        return JavelinTable.load(tableName(ident), location, options.atVersion(chosen), null);
    }

    private String tableName(Identifier ident) {
        return name + "." + ident.toString();
    }

    @Override
    public Table createTable(Identifier ident, Column[] columns, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        List<StructField> fields = new ArrayList<>();
        for (Column c : columns) {
            if (c.defaultValue() != null || c.generationExpression() != null) {
                throw new JavelinSparkException("Column '" + c.name() + "': default values and generated columns are not supported");
            }
            fields.add(new StructField(c.name(), c.dataType(), c.nullable(), org.apache.spark.sql.types.Metadata.empty()));
        }
        return create(ident, new StructType(fields.toArray(StructField[]::new)), partitions, properties);
    }

    @SuppressWarnings("deprecation")
    @Override
    public Table createTable(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        return create(ident, schema, partitions, properties);
    }

    private Table create(Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
            throws TableAlreadyExistsException, NoSuchNamespaceException {
        if (partitions.length > 0) {
            throw new JavelinSparkException("Lance tables are not partitioned: remove PARTITIONED BY from " + ident);
        }
        if (properties.containsKey(TableCatalog.PROP_LOCATION)) {
            throw new JavelinSparkException("LOCATION is not supported: tables live in the catalog's warehouse");
        }
        try {
            TableInfo info = namespace.createTable(id(ident), Flux.empty(), SparkSchemas.toArrow(schema), CreateMode.CREATE).block();
            return JavelinTable.load(tableName(ident), info.location(), options.latest(), null);
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.TABLE_ALREADY_EXISTS) {
                throw new TableAlreadyExistsException(ident);
            }
            if (e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(ident.namespace());
            }
            throw e;
        }
    }

    @Override
    public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
        String location = describe(ident).location();
        TableChanges.apply(location, options, changes);
        return loadTable(ident);
    }

    @Override
    public boolean dropTable(Identifier ident) {
        try {
            namespace.dropTable(id(ident)).block();
            return true;
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.TABLE_NOT_FOUND || e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    @Override
    public void renameTable(Identifier from, Identifier to) throws NoSuchTableException, TableAlreadyExistsException {
        describe(from);
        try {
            namespace.renameTable(id(from), id(to)).block();
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.TABLE_ALREADY_EXISTS) {
                throw new TableAlreadyExistsException(to);
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ namespaces

    @Override
    public String[][] listNamespaces() throws NoSuchNamespaceException {
        return listNamespaces(new String[0]);
    }

    @Override
    public String[][] listNamespaces(String[] ns) throws NoSuchNamespaceException {
        try {
            return namespace.listNamespaces(id(ns)).block().stream().map(n -> {
                String[] out = Arrays.copyOf(ns, ns.length + 1);
                out[ns.length] = n;
                return out;
            }).toArray(String[][]::new);
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(ns);
            }
            throw e;
        }
    }

    @Override
    public boolean namespaceExists(String[] ns) {
        return ns.length == 0 || namespace.namespaceExists(id(ns)).block();
    }

    @Override
    public Map<String, String> loadNamespaceMetadata(String[] ns) throws NoSuchNamespaceException {
        if (ns.length == 0) {
            return Map.of();
        }
        try {
            return new LinkedHashMap<>(namespace.describeNamespace(id(ns)).block());
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(ns);
            }
            throw e;
        }
    }

    @Override
    public void createNamespace(String[] ns, Map<String, String> metadata) throws NamespaceAlreadyExistsException {
        try {
            namespace.createNamespace(id(ns), metadata, CreateMode.CREATE).block();
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.NAMESPACE_ALREADY_EXISTS) {
                throw new NamespaceAlreadyExistsException(ns);
            }
            throw e;
        }
    }

    @Override
    public void alterNamespace(String[] ns, NamespaceChange... changes) {
        throw new UnsupportedOperationException("Namespace properties cannot be changed in a Lance directory namespace");
    }

    @Override
    public boolean dropNamespace(String[] ns, boolean cascade) throws NoSuchNamespaceException, NonEmptyNamespaceException {
        try {
            if (cascade) {
                for (Identifier t : listTables(ns)) {
                    dropTable(t);
                }
                for (String[] child : listNamespaces(ns)) {
                    dropNamespace(child, true);
                }
            }
            namespace.dropNamespace(id(ns)).block();
            return true;
        } catch (NamespaceException e) {
            if (e.code() == NamespaceErrorCode.NAMESPACE_NOT_FOUND) {
                throw new NoSuchNamespaceException(ns);
            }
            if (e.code() == NamespaceErrorCode.NAMESPACE_NOT_EMPTY) {
                throw new NonEmptyNamespaceException(ns);
            }
            throw e;
        }
    }
}
