package io.github.redlock.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps {@code redlock-bom} true to the build it describes: a user who imports it must
 * get every published redlock artifact at this build's version, and nothing else. The BOM
 * has no parent on purpose (the parent imports Spring Boot's BOM, which an importing
 * application must not inherit), so nothing but this test ties its version and its list
 * to the reactor. It fails when a module is added without a BOM entry (seen failing with
 * {@code redlock-spring-integration} left out), when a BOM entry names no module, or when
 * the versions part.
 */
class RedlockBomTests {

	private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	/** Modules that are built but never published as dependencies. */
	private static final List<String> UNPUBLISHED = List.of("sample-app", "redlock-bom", "redlock-benchmarks",
			"redlock-docs-tests");

	@Test
	void theBomManagesEveryPublishedModuleAtTheParentsVersion() throws Exception {
		Document parent = read(ROOT.resolve("pom.xml"));
		Document bom = read(ROOT.resolve("redlock-bom/pom.xml"));
		String version = text(parent.getDocumentElement(), "version");

		TreeSet<String> published = new TreeSet<>();
		for (Element module : children(child(parent.getDocumentElement(), "modules"), "module")) {
			String folder = module.getTextContent().trim();
			Element project = read(ROOT.resolve(folder).resolve("pom.xml")).getDocumentElement();
			String artifactId = text(project, "artifactId");
			if (!UNPUBLISHED.contains(artifactId)) {
				published.add(artifactId);
			}
		}

		Element bomProject = bom.getDocumentElement();
		assertThat(text(bomProject, "version")).as("redlock-bom's <version>, kept equal to redlock-parent's")
			.isEqualTo(version);
		assertThat(text(bomProject, "groupId")).isEqualTo(text(parent.getDocumentElement(), "groupId"));
		assertThat(child(bomProject, "parent"))
			.as("redlock-bom must have no parent: importers would inherit Spring Boot's BOM through it")
			.isNull();

		TreeSet<String> managed = new TreeSet<>();
		Element management = child(child(bomProject, "dependencyManagement"), "dependencies");
		for (Element dependency : children(management, "dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo("io.github.redlock");
			assertThat(child(dependency, "scope")).as("an import in the BOM would leak another BOM to users").isNull();
			assertThat(text(dependency, "version")).isIn("${project.version}", version);
			managed.add(text(dependency, "artifactId"));
		}
		assertThat(managed).as("artifacts redlock-bom manages, against the reactor's published modules")
			.isEqualTo(published);
	}

	private static Document read(Path pom) throws Exception {
		assertThat(pom).exists();
		DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
		factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
		try (var in = Files.newInputStream(pom)) {
			return factory.newDocumentBuilder().parse(in);
		}
	}

	private static Element child(Element parent, String name) {
		if (parent == null) {
			return null;
		}
		List<Element> found = children(parent, name);
		return found.isEmpty() ? null : found.get(0);
	}

	private static List<Element> children(Element parent, String name) {
		List<Element> found = new ArrayList<>();
		NodeList nodes = parent.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			Node node = nodes.item(i);
			if (node instanceof Element element && element.getTagName().equals(name)) {
				found.add(element);
			}
		}
		return found;
	}

	private static String text(Element parent, String name) {
		Element element = child(parent, name);
		assertThat(element).as("<" + name + "> in <" + parent.getTagName() + ">").isNotNull();
		return element.getTextContent().trim();
	}

}
