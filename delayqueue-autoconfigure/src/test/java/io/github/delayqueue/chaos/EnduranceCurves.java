package io.github.delayqueue.chaos;

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
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

import javax.imageio.ImageIO;

/**
 * Draws the endurance run's curves ({@code samples.csv}, {@code faults.csv}) into a PNG: the
 * heap used of each JVM, its threads, Redis's used memory and clients, over the run, with a
 * mark at each fault. Plain JDK (Java 2D, headless).
 */
final class EnduranceCurves {

	private static final int WIDTH = 960;

	private static final int PANEL = 170;

	private static final int LEFT = 70;

	private static final int TOP = 30;

	private static final Color[] COLORS = { new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
			new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f) };

	private record Row(double seconds, String source, double memory, double count) {

	}

	private EnduranceCurves() {
	}

	public static void main(String[] args) throws IOException {
		draw(Path.of(args[0]), Path.of(args[1]));
	}

	/**
	 * Reads {@code samples.csv} and {@code faults.csv} in {@code directory} and writes the
	 * plot to {@code png}.
	 */
	static void draw(Path directory, Path png) throws IOException {
		List<Row> rows = new ArrayList<>();
		for (String line : Files.readAllLines(directory.resolve("samples.csv")).stream().skip(1).toList()) {
			String[] f = line.split(",");
			if (Double.parseDouble(f[0]) >= 0) {
				rows.add(new Row(Double.parseDouble(f[0]), f[1], Double.parseDouble(f[2]), Double.parseDouble(f[3])));
			}
		}
		List<Double> faults = new ArrayList<>();
		for (String line : Files.readAllLines(directory.resolve("faults.csv")).stream().skip(1).toList()) {
			faults.add(Double.parseDouble(line.split(",")[1]));
		}
		double end = rows.stream().mapToDouble(Row::seconds).max().orElse(1);
		BufferedImage image = new BufferedImage(WIDTH, TOP + 3 * (PANEL + 40) + 10, BufferedImage.TYPE_INT_RGB);
		Graphics2D g = image.createGraphics();
		g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
		g.setColor(Color.WHITE);
		g.fillRect(0, 0, image.getWidth(), image.getHeight());
		g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
		Predicate<Row> jvm = (row) -> !row.source().equals("redis");
		panel(g, 0, "heap used, MB (each JVM: the workers, restarted after a kill, and the driver)", rows, jvm,
				(row) -> row.memory() / 1_048_576, end, faults);
		panel(g, 1, "threads of each JVM; Redis connected_clients", rows, (row) -> true, Row::count, end, faults);
		panel(g, 2, "Redis used_memory, MB (the master of the moment)", rows, (row) -> row.source().equals("redis"),
				(row) -> row.memory() / 1_048_576, end, faults);
		g.dispose();
		ImageIO.write(image, "png", png.toFile());
	}

	/** One colour per JVM or server, the same in every panel. */
	private static Color color(String source) {
		if (source.equals("redis")) {
			return Color.BLACK;
		}
		return source.startsWith("worker-") ? COLORS[(1 + Integer.parseInt(source.substring(7))) % COLORS.length]
				: COLORS[0];
	}

	private static void panel(Graphics2D g, int index, String title, List<Row> rows, Predicate<Row> shown,
			ToDoubleFunction<Row> value, double end, List<Double> faults) {
		int top = TOP + index * (PANEL + 40);
		int width = WIDTH - LEFT - 20;
		double max = rows.stream().filter(shown).mapToDouble(value).max().orElse(1) * 1.1;
		g.setColor(Color.BLACK);
		g.drawString(title, LEFT, top - 8);
		g.drawRect(LEFT, top, width, PANEL);
		for (int i = 0; i <= 4; i++) {
			int y = top + PANEL - i * PANEL / 4;
			g.setColor(new Color(0xdddddd));
			g.drawLine(LEFT + 1, y, LEFT + width - 1, y);
			g.setColor(Color.BLACK);
			g.drawString(String.format("%.0f", max * i / 4), 8, y + 4);
		}
		double minutes = end / 60;
		int step = (minutes > 10) ? 5 : 1;
		for (int m = 0; m <= minutes; m += step) {
			int x = LEFT + (int) (m * 60 / end * width);
			g.drawString(m + " min", x - 10, top + PANEL + 14);
		}
		g.setColor(new Color(0xbbbbbb));
		for (double fault : faults) {
			int x = LEFT + (int) (fault / end * width);
			g.drawLine(x, top, x, top + 6);
		}
		Map<String, List<Row>> bySource = new TreeMap<>();
		rows.stream().filter(shown).forEach((row) -> bySource.computeIfAbsent(row.source(), (s) -> new ArrayList<>()).add(row));
		g.setStroke(new BasicStroke(1.2f));
		int legend = LEFT + 6;
		Map<String, Color> colors = new TreeMap<>();
		for (Map.Entry<String, List<Row>> source : bySource.entrySet()) {
			String kind = source.getKey().replaceAll("-\\d+$", "");
			Color color = colors.computeIfAbsent(kind, EnduranceCurves::color);
			g.setColor(color);
			int px = -1;
			int py = -1;
			for (Row row : source.getValue()) {
				int x = LEFT + (int) (row.seconds() / end * width);
				int y = top + PANEL - (int) (value.applyAsDouble(row) / max * PANEL);
				if (px >= 0) {
					g.drawLine(px, py, x, y);
				}
				px = x;
				py = y;
			}
		}
		for (Map.Entry<String, Color> entry : colors.entrySet()) {
			g.setColor(entry.getValue());
			String name = entry.getKey().equals("redis") && index == 1 ? "redis clients" : entry.getKey();
			g.drawString(name, legend, top + 14);
			legend += g.getFontMetrics().stringWidth(name) + 14;
		}
	}

}
