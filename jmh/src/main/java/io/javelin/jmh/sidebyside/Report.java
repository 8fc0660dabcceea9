package io.javelin.jmh.sidebyside;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import javax.imageio.ImageIO;

/** Writes the side-by-side results as JSON, a Markdown table and a PNG bar chart (headless Java2D). */
final class Report {

    static final String OURS = "javelin";
    static final String THEIRS = "lance-core";

    private Report() {
    }

    static void write(List<SideBySide.Case> cases, SideBySide.Options o, String store) throws IOException {
        Files.createDirectories(o.out());
        String name = o.reportName();
        Files.writeString(o.out().resolve(name + ".json"), json(cases, o, store));
        String md = environment(o, store) + "\n\n" + markdownTable(cases, o) + "\n";
        if (hasTraffic(cases)) {
            md += "\nRequests and bytes per run (per take for takes), counted at the latency proxy; the engines run one at a "
                    + "time, so each operation's traffic is its engine's.\n\n" + trafficTable(cases) + "\n";
        }
        Files.writeString(o.out().resolve(name + ".md"), md);
        chart(cases, o.out().resolve(name + ".png"));
    }

    static String environment(SideBySide.Options o, String store) {
        return String.format(Locale.ROOT, "%s; JDK %s (%s); %d CPUs; max heap %d MiB; store: %s; %,d rows (id int64, f float32, s utf8 "
                        + "16-20 B, vec fixed_size_list<float32,128>), written by lance-core 7.0.0 as format 2.1; %d warm-up + %d "
                        + "measured repetitions, engines alternating, both at default settings", Instant.now(), Runtime.version(),
                System.getProperty("java.vm.name"), Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20,
                store, o.rows(), o.warmup(), o.reps());
    }

    static boolean hasTraffic(List<SideBySide.Case> cases) {
        return cases.stream().anyMatch(c -> !c.traffic().isEmpty());
    }

    /** Requests and MiB up/down per engine and operation, with the request ratio. */
    static String trafficTable(List<SideBySide.Case> cases) {
        StringBuilder sb = new StringBuilder();
        sb.append("| operation | javelin requests | lance-core requests | requests ours/theirs | javelin MiB down | lance-core MiB down "
                + "| javelin MiB up | lance-core MiB up |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (SideBySide.Case c : cases) {
            var a = c.traffic().get(OURS);
            var b = c.traffic().get(THEIRS);
            if (a == null || b == null) {
                continue;
            }
            sb.append(String.format(Locale.ROOT, "| %s | %,d | %,d | **%.2f** | %.1f | %.1f | %.1f | %.1f |%n", c.name(), a.requests(),
                    b.requests(), b.requests() == 0 ? Double.NaN : (double) a.requests() / b.requests(), a.bytesDown() / 1048576.0,
                    b.bytesDown() / 1048576.0, a.bytesUp() / 1048576.0, b.bytesUp() / 1048576.0));
        }
        return sb.toString();
    }

    static String markdownTable(List<SideBySide.Case> cases, SideBySide.Options o) {
        StringBuilder sb = new StringBuilder();
        sb.append("| operation | javelin p50 ms | lance-core p50 ms | javelin p95 ms | lance-core p95 ms | javelin rows/s | "
                + "lance-core rows/s | javelin MB/s | lance-core MB/s | time ours/theirs |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (SideBySide.Case c : cases) {
            double a = c.median(OURS);
            double b = c.median(THEIRS);
            sb.append(String.format(Locale.ROOT, "| %s (%s) | %.1f | %.1f | %.1f | %.1f | %s | %s | %s | %s | **%.2f** |%n",
                    c.name(), c.what(), a, b, SideBySide.percentile(c.millis().get(OURS), 95),
                    SideBySide.percentile(c.millis().get(THEIRS), 95), rate(c, OURS, true), rate(c, THEIRS, true),
                    rate(c, OURS, false), rate(c, THEIRS, false), a / b));
        }
        return sb.toString();
    }

    private static String rate(SideBySide.Case c, String engine, boolean rows) {
        var r = c.produced().get(engine);
        double s = c.median(engine) / 1000.0;
        double v = (rows ? r.rows() : r.bytes() / 1e6) / s;
        return String.format(Locale.ROOT, rows ? "%,.0f" : "%,.1f", v);
    }

    static String json(List<SideBySide.Case> cases, SideBySide.Options o, String store) {
        StringBuilder sb = new StringBuilder("{\n");
        sb.append("  \"environment\": ").append(quote(environment(o, store))).append(",\n");
        sb.append(String.format(Locale.ROOT, "  \"store\": %s, \"latency_ms\": %d,%n", quote(o.store()),
                o.store().equals("local") ? 0 : o.latencyMs()));
        sb.append(String.format(Locale.ROOT, "  \"rows\": %d, \"reps\": %d, \"warmup\": %d,%n", o.rows(), o.reps(), o.warmup()));
        sb.append("  \"cases\": [\n");
        for (int i = 0; i < cases.size(); i++) {
            SideBySide.Case c = cases.get(i);
            sb.append("    {\"name\": ").append(quote(c.name())).append(", \"what\": ").append(quote(c.what()));
            for (String e : c.millis().keySet()) {
                var r = c.produced().get(e);
                sb.append(String.format(Locale.ROOT, ", %s: {\"p50_ms\": %.3f, \"p95_ms\": %.3f, \"rows\": %d, \"arrow_bytes\": %d, \"ms\": %s}",
                        quote(e), c.median(e), SideBySide.percentile(c.millis().get(e), 95), r.rows(), r.bytes(),
                        c.millis().get(e).stream().map(d -> String.format(Locale.ROOT, "%.3f", d)).toList()));
                var t = c.traffic().get(e);
                if (t != null) {
                    sb.setLength(sb.length() - 1); // reopen the engine's object
                    sb.append(String.format(Locale.ROOT, ", \"requests\": %d, \"bytes_up\": %d, \"bytes_down\": %d}", t.requests(),
                            t.bytesUp(), t.bytesDown()));
                }
            }
            sb.append(String.format(Locale.ROOT, ", \"ratio_time_ours_over_theirs\": %.4f}", c.median(OURS) / c.median(THEIRS)));
            sb.append(i + 1 < cases.size() ? ",\n" : "\n");
        }
        return sb.append("  ]\n}\n").toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Speed of each engine relative to lance-core (lance-core = 1), one pair of bars per operation, log scale. */
    static void chart(List<SideBySide.Case> cases, Path png) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int rowH = 44;
        int left = 190;
        int width = 900;
        int top = 60;
        int height = top + rowH * cases.size() + 60;
        BufferedImage img = new BufferedImage(width, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, width, height);
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
            g.drawString("Javelin vs lance-core 7.0.0: speed relative to lance-core (log scale, higher is better)", 12, 24);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            // log2 axis from 1/16x to 16x
            double min = -4;
            double max = 4;
            int plotW = width - left - 30;
            java.util.function.DoubleToIntFunction x = v -> left + (int) ((Math.max(min, Math.min(max, v)) - min) / (max - min) * plotW);
            for (int p = (int) min; p <= max; p++) {
                int gx = x.applyAsInt(p);
                g.setColor(p == 0 ? Color.DARK_GRAY : new Color(225, 225, 225));
                g.setStroke(new BasicStroke(p == 0 ? 2f : 1f));
                g.drawLine(gx, top - 8, gx, top + rowH * cases.size());
                g.setColor(Color.GRAY);
                String label = p >= 0 ? (1 << p) + "x" : "1/" + (1 << -p) + "x";
                g.drawString(label, gx - 10, top + rowH * cases.size() + 18);
            }
            for (int i = 0; i < cases.size(); i++) {
                SideBySide.Case c = cases.get(i);
                int y = top + i * rowH;
                double speedup = c.median(THEIRS) / c.median(OURS);
                g.setColor(Color.BLACK);
                g.drawString(c.name(), 12, y + 22);
                int x0 = x.applyAsInt(0);
                int x1 = x.applyAsInt(Math.log(speedup) / Math.log(2));
                g.setColor(speedup >= 1 ? new Color(46, 139, 87) : new Color(205, 92, 92));
                g.fillRect(Math.min(x0, x1), y + 8, Math.max(2, Math.abs(x1 - x0)), rowH - 18);
                g.setColor(Color.BLACK);
                String txt = String.format(Locale.ROOT, "%.2fx  (%.0f vs %.0f ms)", speedup, c.median(OURS), c.median(THEIRS));
                g.drawString(txt, speedup >= 1 ? Math.min(x1 + 6, width - 160) : Math.max(x1 - 150, left + 2), y + 26);
            }
            g.setColor(Color.DARK_GRAY);
            g.drawString("bar = lance-core p50 time / javelin p50 time; green: javelin faster, red: lance-core faster",
                    12, height - 14);
        } finally {
            g.dispose();
        }
        ImageIO.write(img, "png", png.toFile());
    }
}
