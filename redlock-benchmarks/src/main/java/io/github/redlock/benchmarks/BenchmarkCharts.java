package io.github.redlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Draws figures a benchmark printed as grouped bar charts in SVG, so that the pictures in
 * docs/benchmarks.md come from the very numbers of a run's tables and cannot drift from
 * them. Takes the figures as plain numbers (a chart, its groups, one series per
 * contender), knows nothing of how they were measured, and needs no library: the SVG is
 * written as text.
 */
final class BenchmarkCharts {

	private static final String[] COLOURS = { "#2f6db5", "#e07b39", "#8c8c8c", "#55a868", "#c44e52", "#8172b2" };

	private static final int WIDTH = 760;

	private static final int HEIGHT = 440;

	private static final int LEFT = 70;

	private static final int RIGHT = 20;

	private static final int TOP = 70;

	private static final int BOTTOM = 120;

	/** Characters of a caption line at 10 px, within the width. */
	private static final int CAPTION_CHARACTERS = 135;

	private BenchmarkCharts() {
	}

	/**
	 * Writes a chart as {@code
	 *
	<dir>
	 * /<name>.svg}, making the directory if needed.
	 * @return the file written
	 */
	static Path write(Path dir, String name, Chart chart) throws IOException {
		Files.createDirectories(dir);
		Path file = dir.resolve(name + ".svg");
		Files.writeString(file, svg(chart));
		return file;
	}

	/**
	 * Returns the chart as an SVG document: a bar per series in each group, its value
	 * above it (a value that is not a number, a figure not measured, gets no bar and
	 * "-"), a linear axis from 0, the legend above and the caption below, wrapped.
	 */
	static String svg(Chart chart) {
		double max = 0;
		for (Series series : chart.series()) {
			if (series.values().length != chart.groups().size()) {
				throw new IllegalArgumentException("Series '" + series.name() + "' has " + series.values().length
						+ " values for " + chart.groups().size() + " groups");
			}
			for (double value : series.values()) {
				if (Double.isFinite(value)) {
					max = Math.max(max, value);
				}
			}
		}
		double top = niceCeiling(max);
		int plotWidth = WIDTH - LEFT - RIGHT;
		int plotHeight = HEIGHT - TOP - BOTTOM;
		int baseline = TOP + plotHeight;
		StringBuilder svg = new StringBuilder();
		svg.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"")
			.append(WIDTH)
			.append("\" height=\"")
			.append(HEIGHT)
			.append("\" viewBox=\"0 0 ")
			.append(WIDTH)
			.append(' ')
			.append(HEIGHT)
			.append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
		svg.append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
		text(svg, WIDTH / 2, 22, "middle", "16", "bold", chart.title());
		for (int tick = 0; tick <= 4; tick++) {
			double value = top * tick / 4;
			int y = baseline - (int) Math.round(plotHeight * tick / 4.0);
			svg.append("<line x1=\"")
				.append(LEFT)
				.append("\" y1=\"")
				.append(y)
				.append("\" x2=\"")
				.append(WIDTH - RIGHT)
				.append("\" y2=\"")
				.append(y)
				.append("\" stroke=\"#dddddd\"/>\n");
			text(svg, LEFT - 6, y + 4, "end", null, null, (tick != 0) ? format(value) : "0");
		}
		text(svg, 14, TOP + plotHeight / 2, "middle", null, null, chart.unit(),
				" transform=\"rotate(-90 14 " + (TOP + plotHeight / 2) + ")\"");
		int groups = chart.groups().size();
		int bars = chart.series().size();
		double groupWidth = (double) plotWidth / Math.max(1, groups);
		double barWidth = groupWidth * 0.8 / Math.max(1, bars);
		for (int g = 0; g < groups; g++) {
			double groupLeft = LEFT + g * groupWidth + groupWidth * 0.1;
			for (int s = 0; s < bars; s++) {
				double value = chart.series().get(s).values()[g];
				double x = groupLeft + s * barWidth;
				int centre = (int) Math.round(x + barWidth / 2);
				if (!Double.isFinite(value) || top == 0) {
					text(svg, centre, baseline - 4, "middle", "10", null, "-");
					continue;
				}
				int height = (int) Math.round(plotHeight * value / top);
				svg.append("<rect class=\"bar\" x=\"")
					.append(Math.round(x))
					.append("\" y=\"")
					.append(baseline - height)
					.append("\" width=\"")
					.append(Math.max(1, Math.round(barWidth - 2)))
					.append("\" height=\"")
					.append(height)
					.append("\" fill=\"")
					.append(COLOURS[s % COLOURS.length])
					.append("\"><title>")
					.append(escape(chart.series().get(s).name() + ", " + chart.groups().get(g) + ": " + format(value)))
					.append("</title></rect>\n");
				text(svg, centre, baseline - height - 4, "middle", "10", null, format(value));
			}
			text(svg, (int) Math.round(LEFT + g * groupWidth + groupWidth / 2), baseline + 18, "middle", "11", null,
					chart.groups().get(g));
		}
		svg.append("<line x1=\"")
			.append(LEFT)
			.append("\" y1=\"")
			.append(baseline)
			.append("\" x2=\"")
			.append(WIDTH - RIGHT)
			.append("\" y2=\"")
			.append(baseline)
			.append("\" stroke=\"#333333\"/>\n");
		int legendX = LEFT;
		for (int s = 0; s < bars; s++) {
			String name = chart.series().get(s).name();
			svg.append("<rect x=\"")
				.append(legendX)
				.append("\" y=\"38\" width=\"12\" height=\"12\" fill=\"")
				.append(COLOURS[s % COLOURS.length])
				.append("\"/>\n");
			text(svg, legendX + 16, 49, "start", null, null, name);
			legendX += 28 + 7 * name.length();
		}
		int captionY = baseline + 44;
		for (String line : wrap(chart.caption(), CAPTION_CHARACTERS)) {
			text(svg, 10, captionY, "start", "10", null, line);
			captionY += 13;
		}
		return svg.append("</svg>\n").toString();
	}

	private static void text(StringBuilder svg, int x, int y, String anchor, String size, String weight,
			String content) {
		text(svg, x, y, anchor, size, weight, content, "");
	}

	private static void text(StringBuilder svg, int x, int y, String anchor, String size, String weight, String content,
			String more) {
		svg.append("<text x=\"").append(x).append("\" y=\"").append(y).append("\" text-anchor=\"").append(anchor);
		if (size != null) {
			svg.append("\" font-size=\"").append(size);
		}
		if (weight != null) {
			svg.append("\" font-weight=\"").append(weight);
		}
		svg.append('"').append(more).append('>').append(escape(content)).append("</text>\n");
	}

	/** Splits text at its line breaks, and lines longer than {@code width} at spaces. */
	static List<String> wrap(String text, int width) {
		List<String> lines = new ArrayList<>();
		for (String paragraph : text.split("\n")) {
			StringBuilder line = new StringBuilder();
			for (String word : paragraph.split(" ")) {
				if (!line.isEmpty() && line.length() + 1 + word.length() > width) {
					lines.add(line.toString());
					line.setLength(0);
				}
				line.append(line.isEmpty() ? "" : " ").append(word);
			}
			lines.add(line.toString());
		}
		return lines;
	}

	/**
	 * The least of 1, 2, 2.5 or 5 times a power of ten that is at least {@code value}.
	 */
	static double niceCeiling(double value) {
		if (value <= 0) {
			return 0;
		}
		double power = Math.pow(10, Math.floor(Math.log10(value)));
		for (double step : new double[] { 1, 2, 2.5, 5, 10 }) {
			if (step * power >= value) {
				return step * power;
			}
		}
		return 10 * power;
	}

	/**
	 * As the benchmark's tables print a figure: from 100 on, whole with thousands
	 * separators, else with two decimals; "-" for one not measured.
	 */
	static String format(double value) {
		if (!Double.isFinite(value)) {
			return "-";
		}
		return (Math.abs(value) >= 100) ? String.format(Locale.ROOT, "%,.0f", value)
				: String.format(Locale.ROOT, "%.2f", value);
	}

	static String escape(String text) {
		return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
	}

	/**
	 * One chart.
	 *
	 * @param title what it shows
	 * @param unit the unit of its values, beside the axis
	 * @param groups the scenarios, along the axis
	 * @param series one per contender, a value per group
	 * @param caption the run it comes from, lines separated by {@code \n}
	 */
	record Chart(String title, String unit, List<String> groups, List<Series> series, String caption) {
	}

	/**
	 * One contender's values, one per group.
	 *
	 * @param name the contender
	 * @param values its figure in each group; {@code NaN} where not measured
	 */
	record Series(String name, double[] values) {
	}

}
