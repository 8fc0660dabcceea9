package io.javelin.jmh;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.imageio.ImageIO;

/**
 * Log-log chart of commit PUT bytes vs fragment count, flat (dashed) vs tree (solid), one colour per
 * operation; plain Java2D rendered headless to a PNG (no charting dependency).
 */
final class FragmentTreeChart {

    /** Commit operations plotted (their PUT bytes per commit). */
    static final Set<String> PLOTTED = Set.of("append 1 fragment", "delete 1 row (cold)",
            "replace data in 10 fragments (Update)", "replace data in 10 fragments (DataReplacement)",
            "backfill 10 fragments (DataReplacement)", "backfill 10 fragments (Merge)");

    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c),
        new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x17becf),
        new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x000000), new Color(0x393b79)};

    /** operation -> layout ("flat"/"tree") -> fragments -> PUT bytes. */
    static final class Data {
        final Map<String, Map<String, TreeMap<Integer, Long>>> series = new TreeMap<>();

        void add(String operation, boolean tree, int fragments, long putBytes) {
            if (putBytes > 0) {
                series.computeIfAbsent(operation, k -> new TreeMap<>())
                        .computeIfAbsent(tree ? "tree" : "flat", k -> new TreeMap<>()).put(fragments, putBytes);
            }
        }
    }

    private FragmentTreeChart() {
    }

    static void write(Data data, Path out) throws IOException {
        System.setProperty("java.awt.headless", "true");
        int w = 1100;
        int h = 640;
        int left = 90;
        int right = 400;
        int top = 50;
        int bottom = 70;
        double minX = Double.MAX_VALUE;
        double maxX = 0;
        double minY = Double.MAX_VALUE;
        double maxY = 0;
        for (var op : data.series.values()) {
            for (var pts : op.values()) {
                for (var p : pts.entrySet()) {
                    minX = Math.min(minX, p.getKey());
                    maxX = Math.max(maxX, p.getKey());
                    minY = Math.min(minY, p.getValue());
                    maxY = Math.max(maxY, p.getValue());
                }
            }
        }
        if (maxX == 0) {
            return;
        }
        int x0 = (int) Math.floor(Math.log10(minX));
        int x1 = Math.max(x0 + 1, (int) Math.ceil(Math.log10(maxX)));
        int y0 = (int) Math.floor(Math.log10(minY));
        int y1 = Math.max(y0 + 1, (int) Math.ceil(Math.log10(maxY)));
        BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = img.createGraphics();
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setColor(Color.WHITE);
        g.fillRect(0, 0, w, h);
        int pw = w - left - right;
        int ph = h - top - bottom;
        g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        g.setColor(Color.BLACK);
        g.drawString("Bytes PUT per commit vs fragment count (log-log): flat dashed, tree solid", left, 28);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        for (int e = y0; e <= y1; e++) {
            int y = top + ph - (int) Math.round((e - y0) * (double) ph / (y1 - y0));
            g.setColor(new Color(0xdddddd));
            g.drawLine(left, y, left + pw, y);
            g.setColor(Color.BLACK);
            g.drawString(bytes(Math.pow(10, e)), 10, y + 4);
        }
        for (int e = x0; e <= x1; e++) {
            int x = left + (int) Math.round((e - x0) * (double) pw / (x1 - x0));
            g.setColor(new Color(0xdddddd));
            g.drawLine(x, top, x, top + ph);
            g.setColor(Color.BLACK);
            g.drawString("10^" + e, x - 14, top + ph + 18);
        }
        g.drawString("fragments", left + pw / 2 - 25, top + ph + 45);
        g.drawRect(left, top, pw, ph);
        int colour = 0;
        int legendY = top + 10;
        for (var op : data.series.entrySet()) {
            Color c = COLORS[colour++ % COLORS.length];
            for (var layout : op.getValue().entrySet()) {
                boolean tree = layout.getKey().equals("tree");
                g.setColor(c);
                g.setStroke(tree ? new BasicStroke(2.5f)
                        : new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {7f, 5f}, 0f));
                List<int[]> pts = new ArrayList<>();
                for (var p : layout.getValue().entrySet()) {
                    int x = left + (int) Math.round((Math.log10(p.getKey()) - x0) * pw / (x1 - x0));
                    int y = top + ph - (int) Math.round((Math.log10(p.getValue()) - y0) * ph / (y1 - y0));
                    pts.add(new int[] {x, y});
                }
                for (int i = 1; i < pts.size(); i++) {
                    g.drawLine(pts.get(i - 1)[0], pts.get(i - 1)[1], pts.get(i)[0], pts.get(i)[1]);
                }
                for (int[] p : pts) {
                    g.fillOval(p[0] - 4, p[1] - 4, 8, 8);
                }
                g.drawLine(left + pw + 15, legendY - 4, left + pw + 45, legendY - 4);
                g.setColor(Color.BLACK);
                g.drawString(op.getKey().replace(" fragments", "").replace(" fragment", "").replace(" (cold)", "")
                        + " — " + layout.getKey(), left + pw + 50, legendY);
                legendY += 18;
            }
        }
        g.dispose();
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        ImageIO.write(img, "png", out.toFile());
    }

    private static String bytes(double b) {
        if (b >= 1e9) {
            return String.format(Locale.ROOT, "%.0f GB", b / 1e9);
        }
        if (b >= 1e6) {
            return String.format(Locale.ROOT, "%.0f MB", b / 1e6);
        }
        if (b >= 1e3) {
            return String.format(Locale.ROOT, "%.0f kB", b / 1e3);
        }
        return String.format(Locale.ROOT, "%.0f B", b);
    }
}
