package io.javelin.tx.maintenance;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Timestamp;
import io.javelin.tx.deletion.DeletionFiles;
import io.javelin.tx.manifest.ManifestFile;
import io.javelin.tx.pb.DataFile;
import io.javelin.tx.pb.DataFragment;
import io.javelin.tx.pb.DeletionFile;
import io.javelin.tx.pb.Manifest;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Random histories (appends, deletes, rewrites, tags, orphans, in-progress files): cleanup never deletes a
 * file a retained version (latest, tagged, not old) names, never an object younger than the oldest retained
 * version, and deletes exactly the old untagged non-latest manifests. {@code -Djavelin.cleanup.cases=N}.
 */
class CleanupPlannerPropertyTest {

    static final int CASES = Integer.getInteger("javelin.cleanup.cases", 300);

    @Test
    void neverDeletesWhatARetainedVersionOrTagReaches() {
        Random r = new Random(11);
        for (int c = 0; c < CASES; c++) {
            Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
            List<CleanupPlanner.Version> versions = new ArrayList<>();
            List<CleanupPlanner.Listed> listing = new ArrayList<>();
            List<DataFragment> frags = new ArrayList<>();
            long nextId = 0;
            int n = 2 + r.nextInt(12);
            for (int v = 1; v <= n; v++) {
                Instant ts = t0.plusSeconds(3600L * 24 * v);
                int op = v == 1 ? 0 : r.nextInt(3);
                if (op == 0 || frags.isEmpty()) { // append
                    for (int k = 0, m = 1 + r.nextInt(3); k < m; k++) {
                        String p = "f" + c + "-" + v + "-" + k + ".lance";
                        frags.add(DataFragment.newBuilder().setId(nextId++).setPhysicalRows(100)
                                .addFiles(DataFile.newBuilder().setPath(p).addFields(0)).build());
                        listing.add(new CleanupPlanner.Listed("data/" + p, 10, ts.minusSeconds(5)));
                    }
                } else if (op == 1) { // delete: new deletion file on a random fragment
                    int i = r.nextInt(frags.size());
                    DeletionFile df = DeletionFile.newBuilder().setReadVersion(v - 1).setId(r.nextLong() >>> 1).setNumDeletedRows(1).build();
                    frags.set(i, frags.get(i).toBuilder().setDeletionFile(df).build());
                    listing.add(new CleanupPlanner.Listed(DeletionFiles.path(frags.get(i).getId(), df), 5, ts.minusSeconds(5)));
                } else { // rewrite: replace all fragments by one
                    String p = "rw" + c + "-" + v + ".lance";
                    frags.clear();
                    frags.add(DataFragment.newBuilder().setId(nextId++).setPhysicalRows(100)
                            .addFiles(DataFile.newBuilder().setPath(p).addFields(0)).build());
                    listing.add(new CleanupPlanner.Listed("data/" + p, 10, ts.minusSeconds(5)));
                }
                String txn = (v - 1) + "-u" + v + ".txn";
                listing.add(new CleanupPlanner.Listed("_transactions/" + txn, 1, ts.minusSeconds(1)));
                Manifest m = Manifest.newBuilder().setVersion(v).addAllFragments(frags).setTransactionFile(txn)
                        .setTimestamp(Timestamp.newBuilder().setSeconds(ts.getEpochSecond())).build();
                String path = "_versions/" + v + ".manifest";
                versions.add(new CleanupPlanner.Version(path, 50, new ManifestFile(m, null, null, 50)));
                listing.add(new CleanupPlanner.Listed(path, 50, ts));
                if (r.nextInt(4) == 0) { // an orphan (failed write) some time after this version
                    listing.add(new CleanupPlanner.Listed("data/orphan" + c + "-" + v + ".lance", 7, ts.plusSeconds(r.nextInt(200_000))));
                }
            }
            listing.add(new CleanupPlanner.Listed("_refs/tags/x.json", 1, t0)); // never managed
            Set<Long> tags = new HashSet<>();
            for (int v = 1; v <= n; v++) {
                if (r.nextInt(5) == 0) {
                    tags.add((long) v);
                }
            }
            Instant now = t0.plusSeconds(3600L * 24 * (n + r.nextInt(20)));
            CleanupPolicy policy = r.nextBoolean()
                    ? CleanupPolicy.olderThan(t0.plusSeconds(3600L * 24 * (1 + r.nextInt(n + 1))))
                    : CleanupPolicy.beforeVersion(1 + r.nextInt(n + 1));
            policy = policy.withDeleteUnverified(r.nextBoolean());
            CleanupPlan plan = CleanupPlanner.plan(versions, tags, Set.of(), listing, policy, now);

            Set<String> reachable = new HashSet<>();
            Set<Long> retained = new HashSet<>();
            Instant earliest = null;
            for (CleanupPlanner.Version v : versions) {
                boolean keep = v.number() == n || tags.contains(v.number()) || !policy.isOld(v.number(), v.committed());
                if (keep) {
                    retained.add(v.number());
                    CleanupPlanner.collect(v.file(), reachable, new HashSet<>());
                    reachable.add(v.path());
                    earliest = earliest == null || v.committed().isBefore(earliest) ? v.committed() : earliest;
                }
            }
            Set<String> deleted = new HashSet<>(plan.files());
            deleted.addAll(plan.manifests());
            for (String p : deleted) {
                assertThat(reachable).as("case %d deletes reachable %s", c, p).doesNotContain(p);
                assertThat(p).doesNotStartWith("_refs/");
            }
            for (CleanupPlanner.Listed o : listing) {
                if (plan.files().contains(o.path())) {
                    assertThat(o.lastModified()).as("case %d: young %s", c, o.path()).isBefore(earliest);
                }
            }
            Set<Long> expectOld = new HashSet<>();
            for (CleanupPlanner.Version v : versions) {
                if (!retained.contains(v.number())) {
                    expectOld.add(v.number());
                }
            }
            assertThat(new HashSet<>(plan.oldVersions())).as("case %d", c).isEqualTo(expectOld);
            // nothing verified-unreferenced older than the earliest retained version survives
            for (CleanupPlanner.Listed o : listing) {
                if (o.path().startsWith("data/f") || o.path().startsWith("data/rw") || o.path().startsWith("_deletions/")
                        || o.path().startsWith("_transactions/")) {
                    if (!reachable.contains(o.path()) && o.lastModified().isBefore(earliest)) {
                        assertThat(plan.files()).as("case %d keeps garbage %s", c, o.path()).contains(o.path());
                    }
                }
            }
        }
    }
}
