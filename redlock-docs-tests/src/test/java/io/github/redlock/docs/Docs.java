package io.github.redlock.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The Markdown files the tests keep true: README.md, CONTRIBUTING.md, CHANGELOG.md and
 * every page under docs/.
 */
final class Docs {

	private Docs() {
	}

	/** The repository's root folder (the build passes it as {@code docs.root}). */
	static Path root() {
		return Path.of(System.getProperty("docs.root", "..")).toAbsolutePath().normalize();
	}

	/** Every Markdown file checked, relative to the root. */
	static List<Path> markdownFiles() {
		List<Path> files = new ArrayList<>();
		for (String name : List.of("README.md", "CONTRIBUTING.md", "CHANGELOG.md")) {
			if (Files.exists(root().resolve(name))) {
				files.add(Path.of(name));
			}
		}
		try (Stream<Path> pages = Files.walk(root().resolve("docs"))) {
			pages.filter((path) -> path.toString().endsWith(".md"))
				.sorted()
				.forEach((path) -> files.add(root().relativize(path)));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	static List<String> lines(Path relative) {
		try {
			return Files.readAllLines(root().resolve(relative));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * The anchor GitHub gives a heading: lower case, punctuation but hyphens and
	 * underscores dropped, spaces turned into hyphens.
	 */
	static String anchor(String heading) {
		String text = heading.replaceAll("`", "").replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").trim();
		StringBuilder anchor = new StringBuilder();
		for (char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
			if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
				anchor.append(c);
			}
			else if (c == ' ') {
				anchor.append('-');
			}
		}
		return anchor.toString();
	}

	/** The anchors of a file's headings, outside code blocks, numbered as GitHub does. */
	static List<String> anchors(Path relative) {
		List<String> anchors = new ArrayList<>();
		boolean code = false;
		for (String line : lines(relative)) {
			if (line.trim().startsWith("```")) {
				code = !code;
				continue;
			}
			if (!code && line.matches("^#{1,6} .*")) {
				String anchor = anchor(line.replaceFirst("^#+ ", ""));
				String unique = anchor;
				for (int n = 1; anchors.contains(unique); n++) {
					unique = anchor + "-" + n;
				}
				anchors.add(unique);
			}
		}
		return anchors;
	}

}
