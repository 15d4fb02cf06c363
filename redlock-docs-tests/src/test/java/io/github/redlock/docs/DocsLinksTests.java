package io.github.redlock.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every relative link and {@code #anchor} in README.md, CONTRIBUTING.md, CHANGELOG.md and
 * docs/ resolves: the file exists, and the anchor is one of its headings' (issue 26, item
 * 4). Links to other sites are not followed (no network in the build).
 */
class DocsLinksTests {

	private static final Pattern LINK = Pattern.compile("(?<!!)\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

	@Test
	void everyRelativeLinkAndAnchorResolves() {
		List<String> broken = new ArrayList<>();
		int checked = 0;
		for (Path file : Docs.markdownFiles()) {
			List<String> lines = Docs.lines(file);
			boolean code = false;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				if (line.trim().startsWith("```")) {
					code = !code;
					continue;
				}
				if (code) {
					continue;
				}
				Matcher link = LINK.matcher(line.replaceAll("`[^`]*`", ""));
				while (link.find()) {
					String target = link.group(1);
					if (target.matches("^[a-z]+:.*")) {
						continue;
					}
					checked++;
					String problem = problem(file, target);
					if (problem != null) {
						broken.add(file + ":" + (i + 1) + " links to '" + target + "': " + problem);
					}
				}
			}
		}
		assertThat(broken).as("broken links (fix the link, or the heading or file it points to)").isEmpty();
		assertThat(checked).as("relative links checked").isGreaterThan(20);
	}

	private static String problem(Path from, String target) {
		int hash = target.indexOf('#');
		String path = (hash >= 0) ? target.substring(0, hash) : target;
		String anchor = (hash >= 0) ? target.substring(hash + 1) : null;
		Path resolved = path.isEmpty() ? from : normalize(from, path);
		if (resolved == null || !Files.exists(Docs.root().resolve(resolved))) {
			return "no file " + ((resolved != null) ? resolved : path) + " in the repository";
		}
		if (anchor == null) {
			return null;
		}
		if (!resolved.toString().endsWith(".md")) {
			return "an anchor into " + resolved + ", which is not Markdown";
		}
		List<String> anchors = Docs.anchors(resolved);
		if (!anchors.contains(anchor)) {
			return resolved + " has no heading with the anchor '#" + anchor + "'; its anchors are " + anchors;
		}
		return null;
	}

	private static Path normalize(Path from, String path) {
		Path parent = from.getParent();
		Path resolved = ((parent != null) ? parent.resolve(path) : Path.of(path)).normalize();
		return resolved.startsWith("..") ? null : resolved;
	}

}
