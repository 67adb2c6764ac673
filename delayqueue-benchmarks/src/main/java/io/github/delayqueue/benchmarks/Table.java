package io.github.delayqueue.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One scenario's results: a row per implementation, a column per figure, each cell the
 * median of the runs with the minimum and maximum beside it, and rows of ratios between the
 * medians of two rows.
 */
final class Table {

	private final String title;

	private final List<Column> columns;

	private final Map<String, Map<String, List<Double>>> rows = new LinkedHashMap<>();

	/** Ratio rows: the row divided by the row it is divided by. */
	private final Set<Map.Entry<String, String>> ratios = new LinkedHashSet<>();

	Table(String title, List<Column> columns) {
		this.title = title;
		this.columns = columns;
	}

	List<Column> columns() {
		return this.columns;
	}

	void add(String row, Map<String, Double> figures) {
		Map<String, List<Double>> cells = this.rows.computeIfAbsent(row, (key) -> new LinkedHashMap<>());
		figures.forEach((column, value) -> cells.computeIfAbsent(column, (key) -> new ArrayList<>()).add(value));
	}

	/**
	 * Adds a row of the medians of {@code row} divided by those of {@code by}, shown when
	 * both rows have figures; asked again, it stays one row.
	 */
	void addRatio(String row, String by) {
		this.ratios.add(Map.entry(row, by));
	}

	/**
	 * The median of a figure over the runs, or NaN.
	 */
	double median(String row, String column) {
		Map<String, List<Double>> cells = this.rows.get(row);
		List<Double> values = (cells != null) ? cells.get(column) : null;
		return (values != null) ? stats(values)[0] : Double.NaN;
	}

	String toMarkdown() {
		StringBuilder out = new StringBuilder("### ").append(this.title).append("\n\n| |");
		this.columns.forEach((column) -> out.append(' ').append(column.label()).append(" |"));
		out.append("\n|---|");
		this.columns.forEach((column) -> out.append("---:|"));
		out.append('\n');
		this.rows.forEach((row, cells) -> {
			out.append("| ").append(row).append(" |");
			for (Column column : this.columns) {
				List<Double> values = cells.get(column.label());
				out.append(' ').append((values != null) ? cell(column, values) : "—").append(" |");
			}
			out.append('\n');
		});
		this.ratios.forEach((pair) -> {
			String row = pair.getKey();
			String by = pair.getValue();
			if (this.rows.containsKey(row) && this.rows.containsKey(by)) {
				out.append("| ").append(row).append(" ÷ ").append(by).append(" |");
				for (Column column : this.columns) {
					double ratio = median(row, column.label()) / median(by, column.label());
					out.append(' ')
						.append(Double.isFinite(ratio) ? String.format(Locale.ROOT, "%,.2f×", ratio) : "—")
						.append(" |");
				}
				out.append('\n');
			}
		});
		return out.toString();
	}

	private static String cell(Column column, List<Double> values) {
		double[] stats = stats(values);
		if (Double.isNaN(stats[0])) {
			return "—";
		}
		String median = column.format(stats[0]);
		if (values.size() == 1) {
			return median;
		}
		String min = column.format(stats[1]);
		String max = column.format(stats[2]);
		return min.equals(max) ? median : median + " (" + min + "–" + max + ")";
	}

	/**
	 * Median, minimum and maximum, ignoring NaN.
	 */
	private static double[] stats(List<Double> values) {
		double[] sorted = values.stream().filter((value) -> !Double.isNaN(value)).mapToDouble(Double::doubleValue)
			.sorted().toArray();
		if (sorted.length == 0) {
			return new double[] { Double.NaN, Double.NaN, Double.NaN };
		}
		int n = sorted.length;
		double median = (n % 2 == 1) ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
		return new double[] { median, sorted[0], sorted[n - 1] };
	}

	/**
	 * A column: its label and how its figures are written.
	 */
	record Column(String label, String pattern) {

		static Column rate(String label) {
			return new Column(label, "%,.0f");
		}

		static Column millis(String label) {
			return new Column(label, "%,.1f");
		}

		static Column count(String label) {
			return new Column(label, "%,.0f");
		}

		static Column decimal(String label) {
			return new Column(label, "%,.2f");
		}

		String format(double value) {
			return String.format(Locale.ROOT, this.pattern, value);
		}

		static List<Column> of(Column... columns) {
			return Arrays.asList(columns);
		}

	}

}
