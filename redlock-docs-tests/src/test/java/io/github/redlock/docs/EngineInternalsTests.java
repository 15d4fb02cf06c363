package io.github.redlock.docs;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The modules beside redlock-core use the engine through its public face
 * ({@code io.github.redlock} and the public types of {@code io.github.redlock.engine}),
 * never its layers' packages ({@code io.github.redlock.engine.node} and the others below
 * it), whose classes are public only so that the layers can reach each other. This module
 * has every shipped module on its class path.
 */
class EngineInternalsTests {

	private static final JavaClasses SHIPPED = new ClassFileImporter()
		.withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
		.importPackages("io.github.redlock");

	private static final DescribedPredicate<JavaClass> ENGINE_INTERNALS = DescribedPredicate.describe(
			"the engine's layers (packages below io.github.redlock.engine)",
			(type) -> type.getBaseComponentType().getPackageName().startsWith("io.github.redlock.engine."));

	@Test
	void everyShippedModuleIsOnTheClassPath() {
		assertThat(SHIPPED.stream().anyMatch((type) -> type.getPackageName().equals("io.github.redlock.autoconfigure")))
			.as("io.github.redlock.autoconfigure")
			.isTrue();
		assertThat(SHIPPED.stream().anyMatch((type) -> type.getPackageName().equals("io.github.redlock.shedlock")))
			.as("io.github.redlock.shedlock")
			.isTrue();
		assertThat(SHIPPED.stream().anyMatch((type) -> type.getPackageName().equals("io.github.redlock.integration")))
			.as("io.github.redlock.integration")
			.isTrue();
		assertThat(SHIPPED.stream().anyMatch((type) -> type.getPackageName().equals("io.github.redlock.embedded")))
			.as("io.github.redlock.embedded")
			.isTrue();
		assertThat(SHIPPED.stream().anyMatch((type) -> type.getPackageName().equals("io.github.redlock.engine.node")))
			.as("io.github.redlock.engine.node")
			.isTrue();
	}

	@Test
	void noModuleButTheEngineReachesIntoItsLayers() {
		noClasses().that()
			.resideOutsideOfPackage("io.github.redlock.engine..")
			.should()
			.dependOnClassesThat(ENGINE_INTERNALS)
			.check(SHIPPED);
	}

}
