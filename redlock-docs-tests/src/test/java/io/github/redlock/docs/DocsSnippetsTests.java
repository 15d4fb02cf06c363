package io.github.redlock.docs;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code ```java} block in README.md and docs/ compiles against the published
 * modules, as a reader would paste it into a project (issue 26, items 4 and 6). A block
 * that shows only a part of a class says so with {@code <!-- fragment -->} on the line
 * before its fence, and is not compiled. Each block is a compilation unit of its own, in
 * a package of its own, so two pages may both define {@code PaymentService}.
 */
class DocsSnippetsTests {

	static final String FRAGMENT = "<!-- fragment -->";

	private static final Pattern PUBLIC_TYPE = Pattern
		.compile("(?m)^public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum|@interface)\\s+(\\w+)");

	@Test
	void everyJavaSnippetCompiles(@TempDir Path output) throws IOException {
		List<Snippet> snippets = snippets();
		assertThat(snippets).as("compiled Java snippets in the docs").hasSizeGreaterThan(10);
		assertThat(compile(snippets, output)).as("Java snippets in the docs that do not compile").isEmpty();
	}

	/**
	 * Compiles snippets into {@code output} against the published modules.
	 * @return the errors, each with the file and line of the snippet
	 */
	static List<String> compile(List<Snippet> snippets, Path output) throws IOException {
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		assertThat(compiler).as("a JDK's compiler (javax.tools), to compile the snippets").isNotNull();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		List<String> options = List.of("-classpath", classpath(), "-d", output.toString(), "-parameters", "-proc:none",
				"--release", "17", "-Xlint:none");
		StringWriter out = new StringWriter();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			compiler.getTask(out, files, diagnostics, options, null, snippets).call();
		}
		List<String> errors = new ArrayList<>();
		for (Diagnostic<? extends JavaFileObject> diagnostic : diagnostics.getDiagnostics()) {
			if (diagnostic.getKind() == Diagnostic.Kind.ERROR && diagnostic.getSource() instanceof Snippet snippet) {
				long line = snippet.firstLine + diagnostic.getLineNumber() - snippet.addedLines - 1;
				errors.add(snippet.file + ":" + line + ": " + diagnostic.getMessage(Locale.ROOT)
						+ "\n  fix the snippet, or mark it " + FRAGMENT + " on the line before its fence if it is"
						+ " not meant to compile");
			}
			else if (diagnostic.getKind() == Diagnostic.Kind.ERROR) {
				errors.add(diagnostic.toString());
			}
		}
		return errors;
	}

	/** Every compiled {@code ```java} block of the checked Markdown files. */
	static List<Snippet> snippets() {
		List<Snippet> snippets = new ArrayList<>();
		for (Path file : Docs.markdownFiles()) {
			List<String> lines = Docs.lines(file);
			for (int i = 0; i < lines.size(); i++) {
				if (!lines.get(i).trim().equals("```java")) {
					continue;
				}
				boolean fragment = i > 0 && lines.get(i - 1).trim().equals(FRAGMENT);
				int first = i + 1;
				StringBuilder code = new StringBuilder();
				int end = first;
				while (end < lines.size() && !lines.get(end).trim().equals("```")) {
					code.append(lines.get(end).replaceFirst("^ {0,3}", "")).append('\n');
					end++;
				}
				if (!fragment) {
					snippets.add(new Snippet(file, first + 1, snippets.size(), code.toString()));
				}
				i = end;
			}
		}
		return snippets;
	}

	private static String classpath() {
		String classpath = System.getProperty("docs.snippet.classpath");
		assertThat(classpath).as("docs.snippet.classpath (set by the build)").isNotBlank();
		return classpath;
	}

	/** One block as a compilation unit: a package of its own, then the block. */
	static final class Snippet extends SimpleJavaFileObject {

		final Path file;

		final int firstLine;

		final int addedLines = 1;

		private final String source;

		Snippet(Path file, int firstLine, int index, String code) {
			super(URI.create("string:///snippet" + index + "/" + typeName(code) + ".java"), Kind.SOURCE);
			this.file = file;
			this.firstLine = firstLine;
			this.source = "package snippet" + index + ";\n" + code;
		}

		/**
		 * Returns the binary name of the block's public type, once compiled.
		 */
		String className() {
			return toUri().getPath().substring(1).replace(".java", "").replace('/', '.');
		}

		/**
		 * Returns the block as written.
		 */
		String code() {
			return this.source;
		}

		private static String typeName(String code) {
			Matcher type = PUBLIC_TYPE.matcher(code);
			return type.find() ? type.group(1) : "Snippet";
		}

		@Override
		public CharSequence getCharContent(boolean ignoreEncodingErrors) {
			return this.source;
		}

	}

}
