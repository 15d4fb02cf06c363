package io.github.redlock.benchmarks;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.offset;

/**
 * {@link BenchmarkCharts} draws given figures: a bar per measured figure, as tall as its
 * share of the axis, labelled as the tables print it, and none for a figure not measured.
 */
class BenchmarkChartsTests {

	private static final BenchmarkCharts.Chart CHART = new BenchmarkCharts.Chart("Cycles <per> second", "per second",
			List.of("1 thread", "16 threads"),
			List.of(new BenchmarkCharts.Series("registry", new double[] { 2400, 7800.4 }),
					new BenchmarkCharts.Series("bare quorum & co", new double[] { 2500, Double.NaN })),
			"ComparisonBenchmark, settings: a caption long enough to be wrapped once it passes the width of the"
					+ " chart, which it does here since it goes on and on about the machine and the settings\nmachine: 2 CPU(s)");

	@Test
	void eachMeasuredFigureIsABarProportionalToItsValueAndLabelledAsTheTablesPrintIt() throws Exception {
		Document svg = parse(BenchmarkCharts.svg(CHART));
		List<Element> bars = bars(svg);
		assertThat(bars).hasSize(3);
		assertThat(bars).extracting((bar) -> bar.getElementsByTagName("title").item(0).getTextContent())
			.containsExactly("registry, 1 thread: 2,400", "bare quorum & co, 1 thread: 2,500",
					"registry, 16 threads: 7,800");
		// the axis goes to 10,000, the nice ceiling of 7,800.4
		double perUnit = height(bars.get(2)) / 7800.4;
		assertThat(height(bars.get(0)) / perUnit).isCloseTo(2400, offset(20.0));
		assertThat(height(bars.get(1))).isGreaterThan(height(bars.get(0)));
		List<String> texts = texts(svg);
		assertThat(texts).contains("Cycles <per> second", "registry", "bare quorum & co", "2,400", "7,800", "0",
				"10,000", "-", "1 thread", "16 threads", "machine: 2 CPU(s)");
		assertThat(texts).filteredOn((text) -> text.startsWith("ComparisonBenchmark"))
			.singleElement()
			.asString()
			.hasSizeLessThanOrEqualTo(135);
	}

	@Test
	void smallFiguresKeepTwoDecimalsAsInTheTables() {
		assertThat(BenchmarkCharts.format(412.6)).isEqualTo("413");
		assertThat(BenchmarkCharts.format(1234567)).isEqualTo("1,234,567");
		assertThat(BenchmarkCharts.format(87.456)).isEqualTo("87.46");
		assertThat(BenchmarkCharts.format(Double.NaN)).isEqualTo("-");
		assertThat(BenchmarkCharts.niceCeiling(7800.4)).isEqualTo(10000);
		assertThat(BenchmarkCharts.niceCeiling(2100)).isEqualTo(2500);
		assertThat(BenchmarkCharts.niceCeiling(0)).isZero();
	}

	@Test
	void aSeriesWithAValueMissingForAGroupIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> BenchmarkCharts.svg(new BenchmarkCharts.Chart("t", "u", List.of("a", "b"),
					List.of(new BenchmarkCharts.Series("short", new double[] { 1 })), "")))
			.withMessageContaining("'short' has 1 values for 2 groups");
	}

	@Test
	void writesTheFileNamedInTheDirectory(@TempDir Path dir) throws Exception {
		Path file = BenchmarkCharts.write(dir.resolve("images"), "cycles", CHART);
		assertThat(file).hasFileName("cycles.svg");
		assertThat(Files.readString(file)).isEqualTo(BenchmarkCharts.svg(CHART));
	}

	private static Document parse(String svg) throws Exception {
		return DocumentBuilderFactory.newInstance()
			.newDocumentBuilder()
			.parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
	}

	private static List<Element> bars(Document svg) {
		List<Element> bars = new ArrayList<>();
		NodeList rects = svg.getElementsByTagName("rect");
		for (int i = 0; i < rects.getLength(); i++) {
			Element rect = (Element) rects.item(i);
			if ("bar".equals(rect.getAttribute("class"))) {
				bars.add(rect);
			}
		}
		return bars;
	}

	private static double height(Element bar) {
		return Double.parseDouble(bar.getAttribute("height"));
	}

	private static List<String> texts(Document svg) {
		List<String> texts = new ArrayList<>();
		NodeList nodes = svg.getElementsByTagName("text");
		for (int i = 0; i < nodes.getLength(); i++) {
			texts.add(nodes.item(i).getTextContent());
		}
		return texts;
	}

}
