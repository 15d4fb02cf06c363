package io.github.redlock.engine;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's layers, each depending only on those below it, bottom up: {@code node}
 * (one master), {@code quorum} (N masters as one), {@code waiting} (when to try again),
 * {@code lease} (a hold over time), {@code kinds} (what is locked), and the façade,
 * {@code RedlockRegistry}, in {@code io.github.redlock.engine} itself. The public API
 * package ({@code io.github.redlock}) and the engine's public types ({@link #SEAM}) are
 * what every layer may use.
 */
class EngineLayersTests {

	/**
	 * The public types of {@code io.github.redlock.engine} that other modules and
	 * applications use: the layers may use them too, as values and callbacks.
	 */
	static final Set<String> SEAM = Set.of("InvalidOptionException", "LockObserver", "NodeState", "NodeStatus",
			"RegistryListener", "RedlockSettings");

	private static final JavaClasses CORE = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.redlock");

	private static final DescribedPredicate<JavaClass> SEAM_TYPES = DescribedPredicate
		.describe("the engine's public types " + SEAM, (type) -> isSeam(type.getBaseComponentType()));

	/**
	 * The engine's layer packages, bottom up: each may use the ones before it.
	 */
	static final List<String> LAYERS = List.of("node", "quorum", "waiting", "lease", "kinds");

	private static final String[] LIBRARIES = { "java..", "javax..", "io.lettuce..", "io.netty..", "reactor..",
			"org.apache.commons.logging..", "org.jspecify.." };

	@Test
	void eachLayerKnowsNothingOfTheLayersAboveIt() {
		for (int i = 0; i < LAYERS.size(); i++) {
			String[] allowed = LAYERS.subList(0, i + 1)
				.stream()
				.map((layer) -> "io.github.redlock.engine." + layer + "..")
				.toArray(String[]::new);
			classes().that()
				.resideInAPackage("io.github.redlock.engine." + LAYERS.get(i) + "..")
				.should()
				.onlyDependOnClassesThat(resideInAnyPackage(allowed).or(resideInAnyPackage(LIBRARIES))
					.or(resideInAPackage("io.github.redlock"))
					.or(SEAM_TYPES))
				.check(CORE);
		}
	}

	/**
	 * The layers' sources import nothing of the layers above them either, not even for
	 * Javadoc, which the class files do not show.
	 */
	@Test
	void noLayerImportsALayerAboveIt() throws IOException {
		Path engine = Path.of("src/main/java/io/github/redlock/engine");
		for (int i = 0; i < LAYERS.size(); i++) {
			List<String> above = new ArrayList<>(LAYERS.subList(i + 1, LAYERS.size()));
			try (Stream<Path> sources = Files.list(engine.resolve(LAYERS.get(i)))) {
				for (Path source : sources.toList()) {
					for (String line : Files.readAllLines(source)) {
						if (line.startsWith("import io.github.redlock.engine.")) {
							String imported = line.substring("import io.github.redlock.engine.".length());
							assertThat(above.stream().anyMatch((layer) -> imported.startsWith(layer + "."))
									|| imported.startsWith("RedlockRegistry") || imported.startsWith("Diagnostics"))
								.as(source + ": " + line)
								.isFalse();
						}
					}
				}
			}
		}
	}

	@Test
	void thePublicApiKnowsNothingOfTheEngine() {
		noClasses().that()
			.resideInAPackage("io.github.redlock")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("io.github.redlock.engine..")
			.check(CORE);
	}

	@Test
	void theSeamKnowsNothingOfTheEngineBehindIt() {
		noClasses().that(SEAM_TYPES)
			.should()
			.dependOnClassesThat(resideInAPackage("io.github.redlock.engine..").and(DescribedPredicate.not(SEAM_TYPES)))
			.check(CORE);
	}

	/** Whether a type is one of {@link #SEAM}, or nested in one. */
	private static boolean isSeam(JavaClass type) {
		if (!type.getPackageName().equals("io.github.redlock.engine")) {
			return false;
		}
		String name = type.getName().substring(type.getPackageName().length() + 1);
		int nested = name.indexOf('$');
		return SEAM.contains((nested < 0) ? name : name.substring(0, nested));
	}

}
