package io.github.redlock.engine.node;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every script constant of {@link Script} has a contract test on a real node: a test
 * method named after it (ACQUIRE_READ: {@code acquireRead...}) in one of the script
 * contract classes, so that a script added to the engine without one fails here.
 */
class ScriptContractCoverageTests {

	private static final Class<?>[] CONTRACTS = { ExclusiveScriptContractIntegrationTests.class,
			QueueScriptContractIntegrationTests.class, ReadWriteScriptContractIntegrationTests.class,
			PermitScriptContractIntegrationTests.class, ClusterScriptContractIntegrationTests.class };

	@Test
	void everyScriptConstantHasAContractTestNamedAfterIt() {
		Map<String, String> scripts = scriptConstants();
		assertThat(scripts).hasSize(24);
		Set<String> covered = new TreeSet<>();
		for (Class<?> contract : CONTRACTS) {
			for (Method method : contract.getDeclaredMethods()) {
				if (method.isAnnotationPresent(Test.class)) {
					// the script whose name is the longest prefix: acquireRead... is
					// ACQUIRE_READ's, not ACQUIRE's
					scripts.entrySet()
						.stream()
						.filter((script) -> startsWithWord(method.getName(), script.getKey()))
						.max(Comparator.comparingInt((script) -> script.getKey().length()))
						.ifPresent((script) -> covered.add(script.getValue()));
				}
			}
		}
		assertThat(covered).containsExactlyInAnyOrderElementsOf(scripts.values());
	}

	/** The script constants by the camel-case prefix their tests' names begin with. */
	private static Map<String, String> scriptConstants() {
		return Arrays.stream(Script.class.getDeclaredFields())
			.filter((field) -> Modifier.isStatic(field.getModifiers()) && field.getType() == Script.class)
			.map(Field::getName)
			.collect(Collectors.toMap(ScriptContractCoverageTests::camel, (name) -> name, (a, b) -> a, TreeMap::new));
	}

	private static String camel(String constant) {
		String[] words = constant.toLowerCase(Locale.ROOT).split("_");
		StringBuilder camel = new StringBuilder(words[0]);
		for (int i = 1; i < words.length; i++) {
			camel.append(Character.toUpperCase(words[i].charAt(0))).append(words[i].substring(1));
		}
		return camel.toString();
	}

	private static boolean startsWithWord(String method, String prefix) {
		return method.startsWith(prefix)
				&& (method.length() == prefix.length() || Character.isUpperCase(method.charAt(prefix.length())));
	}

}
