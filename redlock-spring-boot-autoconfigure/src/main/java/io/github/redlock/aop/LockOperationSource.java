package io.github.redlock.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.redlock.Durations;
import io.github.redlock.annotation.DistributedLock;
import io.github.redlock.annotation.LockMode;
import org.jspecify.annotations.Nullable;

import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.AnnotatedElementKey;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.Literal;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * Finds {@code @DistributedLock} on methods (directly, on an interface the class
 * implements, or through a meta-annotation), and parses and checks it once per method and
 * target class. Called while beans are proxied, so that a bad key expression or duration
 * stops the application at start-up rather than at the first call.
 *
 * @author redlock contributors
 */
final class LockOperationSource {

	/** The largest permit count a semaphore takes ({@code LockRegistry.semaphore}). */
	private static final int MAX_PERMITS = 16383;

	/**
	 * A duration attribute's text, quoted at the start of a problem, that is a bare
	 * number.
	 */
	private static final Pattern BARE_NUMBER = Pattern.compile("\"(\\d+)\"");

	/** What a duration attribute must be, for the action of a problem with one. */
	private static final String WRITE_A_DURATION = "Write it as 10s, 500ms, PT10S, or a ${placeholder:default} that resolves to one";

	private final Map<AnnotatedElementKey, Optional<LockOperation>> cache = new ConcurrentHashMap<>(256);

	private final Map<Class<?>, List<LockOperation>> classes = new ConcurrentHashMap<>(64);

	private final LockKeyEvaluator evaluator;

	private volatile @Nullable BeanFactory beanFactory;

	LockOperationSource(LockKeyEvaluator evaluator) {
		this.evaluator = evaluator;
	}

	void setBeanFactory(BeanFactory beanFactory) {
		this.beanFactory = beanFactory;
	}

	/**
	 * Returns the lock of a method, or {@code null} if it has none.
	 * @throws InvalidDistributedLockException if its annotation cannot work
	 */
	@Nullable LockOperation find(Method method, Class<?> targetClass) {
		AnnotatedElementKey key = new AnnotatedElementKey(method, targetClass);
		Optional<LockOperation> operation = this.cache.get(key);
		if (operation == null) {
			operation = Optional.ofNullable(parse(method, targetClass));
			this.cache.put(key, operation);
		}
		return operation.orElse(null);
	}

	/**
	 * Returns the locks of every method of a class, each parsed and checked once, and
	 * refuses a locked method that no proxy could intercept. The advisor's pointcut asks
	 * for them the first time it meets the class: the proxy creator stops at the first
	 * locked method it finds, and an interface-based proxy would check the others only at
	 * their first call.
	 * @throws InvalidDistributedLockException if an annotation cannot work
	 */
	List<LockOperation> operations(Class<?> targetClass) {
		List<LockOperation> operations = this.classes.get(targetClass);
		if (operations == null) {
			Map<Method, LockOperation> found = MethodIntrospector.selectMethods(targetClass,
					(MethodIntrospector.MetadataLookup<LockOperation>) (method) -> find(method, targetClass));
			operations = List.copyOf(new LinkedHashSet<>(found.values()));
			for (LockOperation operation : operations) {
				LockInterceptionCheck.checkInterceptable(operation, targetClass);
			}
			this.classes.put(targetClass, operations);
		}
		return operations;
	}

	private @Nullable LockOperation parse(Method method, Class<?> targetClass) {
		Method specific = (targetClass != null) ? AopUtils.getMostSpecificMethod(method, targetClass) : method;
		DistributedLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, DistributedLock.class);
		if (annotation == null && specific != method) {
			annotation = AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class);
		}
		if (annotation == null) {
			return null;
		}
		String description = specific.getDeclaringClass().getSimpleName() + "." + specific.getName() + "("
				+ Arrays.stream(specific.getParameterTypes())
					.map(Class::getSimpleName)
					.collect(Collectors.joining(", "))
				+ ")";
		AnnotatedElementKey elementKey = new AnnotatedElementKey(specific, targetClass);
		LockedReturnType returnType;
		try {
			returnType = LockedReturnType.of(specific);
		}
		catch (LockedReturnType.Refused ex) {
			throw new InvalidDistributedLockException(
					"@DistributedLock on " + description + ": the method " + ex.getMessage(), ex.action() + ".");
		}
		String key = annotation.key();
		if (key.isBlank()) {
			throw invalid(description, "key", "is empty",
					"Give a SpEL expression such as key = \"#orderId\" or key = \"'order:' + #id\"; quote a literal: key = \"'nightly'\"");
		}
		Expression expression;
		try {
			expression = this.evaluator.parse(key, elementKey);
		}
		catch (ParseException ex) {
			throw invalid(description, "key",
					"\"" + key + "\" is not a valid SpEL expression (" + ex.getMessage() + ")",
					"Fix the expression: arguments are #name, #p0 or #a0, beans @name, and literal text is quoted, as in \"'order:' + #id\"");
		}
		SpelNode ast = (expression instanceof SpelExpression spel) ? spel.getAST() : null;
		if (ast != null) {
			checkVariables(description, key, specific, ast);
		}
		Duration ttl = duration(description, "ttl", annotation.ttl());
		Duration waitTime = duration(description, "waitTime", annotation.waitTime());
		if (ttl != null && (ttl.isZero() || ttl.isNegative())) {
			throw invalid(description, "ttl", "\"" + annotation.ttl() + "\" is not positive", "Give a TTL such as 10s");
		}
		Duration maxTtl = maxTtl();
		if (ttl != null && maxTtl != null && ttl.compareTo(maxTtl) > 0) {
			throw invalid(description, "ttl",
					"\"" + annotation.ttl() + "\" is above redlock.max-ttl (" + Durations.format(maxTtl) + ")",
					"Lower the ttl (the lease is kept extended while the method runs) or raise redlock.max-ttl");
		}
		if (waitTime != null && waitTime.isNegative()) {
			throw invalid(description, "waitTime", "\"" + annotation.waitTime() + "\" is negative",
					"Give a wait time such as 2s, or 0s for a single attempt");
		}
		Duration leastTtl = leastTtl();
		if (ttl != null && leastTtl != null && ttl.compareTo(leastTtl) < 0) {
			throw invalid(description, "ttl",
					"\"" + annotation.ttl()
							+ "\" is too short: no lock of it can be valid, as the clock drift allowed for (2ms plus"
							+ " redlock.drift-factor of the ttl) is at least as long",
					"Raise the ttl to at least " + Durations.format(leastTtl));
		}
		boolean skipIfLocked = annotation.skipIfLocked();
		if (skipIfLocked) {
			checkSkippable(description, specific, returnType);
			if (waitTime == null) {
				waitTime = Duration.ZERO; // a scheduled job that finds the lock busy
											// skips
			}
		}
		Duration holdAtLeast = holdAtLeast(description, specific, annotation.holdAtLeast(), returnType);
		checkMode(description, annotation.mode(), annotation.permits());
		return new LockOperation(description, specific, elementKey, key, ttl, waitTime, annotation.autoExtend(),
				(ast != null) ? parts(ast) : null, skipIfLocked, holdAtLeast, returnType, annotation.mode(),
				annotation.permits());
	}

	/**
	 * Refuses a permit count out of range, and permits with a read or write mode. Both
	 * work on every return type: an asynchronous method acquires its read, write or
	 * permit lease without blocking, as it does the exclusive lock.
	 */
	private static void checkMode(String description, LockMode mode, int permits) {
		if (permits < 0 || permits > MAX_PERMITS) {
			throw invalid(description, "permits", "is " + permits + ", out of range",
					"Give the number of permits, from 1 to " + MAX_PERMITS + ", or 0 (the default) for a lock");
		}
		if (permits > 0 && mode != LockMode.EXCLUSIVE) {
			throw invalid(description, "permits", "is set together with mode = " + mode,
					"A semaphore has no read or write mode: drop mode, or drop permits for a read-write lock");
		}
	}

	/**
	 * Refuses {@code skipIfLocked} on a method whose return type cannot say that the call
	 * was skipped.
	 */
	private static void checkSkippable(String description, Method method, LockedReturnType returnType) {
		if (returnType.suspending()) {
			checkSkippableSuspending(description, method, returnType);
			return;
		}
		Class<?> type = method.getReturnType();
		if (type == void.class || type == Void.class || type == Optional.class || returnType.reactive()) {
			return;
		}
		if (returnType.style() == LockedReturnType.Style.COMPLETION_STAGE) {
			Class<?> value = ResolvableType.forMethodReturnType(method).as(CompletionStage.class).resolveGeneric(0);
			if (value == Void.class || value == Optional.class) {
				return;
			}
		}
		throw invalid(description, "skipIfLocked",
				"cannot be used on a method that returns " + method.getGenericReturnType().getTypeName()
						+ ": a skipped call could only return a made-up value",
				"Return void, Optional, a reactive type (Mono, Flux, Publisher, ...), or a CompletionStage of Void or Optional; or drop skipIfLocked"
						+ " and handle LockAcquisitionException");
	}

	/**
	 * Refuses {@code skipIfLocked} on a suspend function whose result cannot be left out:
	 * a skipped call's coroutine gets {@code null}, which fits {@code Unit} and a
	 * nullable type, and an empty {@code Flow}.
	 */
	private static void checkSkippableSuspending(String description, Method method, LockedReturnType returnType) {
		MethodParameter result = new MethodParameter(method, -1);
		if (returnType.style() == LockedReturnType.Style.FLUX || result.getParameterType() == void.class
				|| result.isOptional()) {
			return;
		}
		throw invalid(description, "skipIfLocked", "cannot be used on a suspend function that returns a non-null "
				+ result.getParameterType().getSimpleName() + ": a skipped call could only return a made-up value",
				"Return Unit, a nullable type (null when skipped) or a Flow; or drop skipIfLocked and handle"
						+ " LockAcquisitionException");
	}

	private @Nullable Duration holdAtLeast(String description, Method method, String text,
			LockedReturnType returnType) {
		Duration holdAtLeast = duration(description, "holdAtLeast", text);
		if (holdAtLeast == null) {
			return null;
		}
		if (holdAtLeast.isNegative()) {
			throw invalid(description, "holdAtLeast", "\"" + text + "\" is negative",
					"Give the least time the lock stays held, such as 30s, or leave it empty for none");
		}
		if (returnType.style() != LockedReturnType.Style.VALUE) {
			String kind = returnType.suspending() ? "a suspend function"
					: "a method that returns " + method.getReturnType().getSimpleName();
			throw invalid(description, "holdAtLeast",
					"is not supported on " + kind + ": its lock is released when the work completes, off the calling"
							+ " thread",
					"Use it on a method that returns a plain value or void (such as the @Scheduled method that"
							+ " starts the work), or drop holdAtLeast");
		}
		DistributedLockSettings settings = settings();
		Duration maxHold = (settings != null) ? settings.getMaxHold() : null;
		if (maxHold != null && holdAtLeast.compareTo(maxHold) > 0) {
			throw invalid(description, "holdAtLeast",
					"\"" + text + "\" is above redlock.max-hold (" + Durations.format(maxHold) + ")",
					"Lower holdAtLeast or raise redlock.max-hold");
		}
		return holdAtLeast.isZero() ? null : holdAtLeast;
	}

	/**
	 * Checks that every variable the key names exists when it is evaluated: a parameter
	 * by name, {@code #p<i>} or {@code #a<i>}, or {@code #root} and {@code #this}. A
	 * misspelled name would evaluate to {@code null}, and every call would contend for
	 * one lock.
	 */
	private void checkVariables(String description, String key, Method method, SpelNode ast) {
		String[] names = this.evaluator.parameterNames(method);
		Set<String> known = new LinkedHashSet<>();
		if (names != null) {
			known.addAll(Arrays.asList(names));
		}
		for (int i = 0; i < method.getParameterCount(); i++) {
			known.add("p" + i);
			known.add("a" + i);
		}
		known.add("root");
		known.add("this");
		for (String variable : variables(ast, new LinkedHashSet<>())) {
			if (known.contains(variable)) {
				continue;
			}
			String parameters = (names != null && names.length > 0)
					? Arrays.stream(names).map((name) -> "#" + name).collect(Collectors.joining(", "))
					: (method.getParameterCount() == 0) ? "none" : "#p0 to #p" + (method.getParameterCount() - 1)
							+ " (names are not available: compile with -parameters to use them)";
			throw invalid(description, "key",
					"\"" + key + "\" names #" + variable
							+ ", which is neither a parameter of the method nor #root; the method's parameters are "
							+ parameters,
					"Name a parameter as it is declared (or by position, #p0 or #a0); a misspelled name would evaluate to null and make every call contend for one lock");
		}
	}

	private static Set<String> variables(SpelNode node, Set<String> found) {
		if (node instanceof VariableReference) {
			found.add(node.toStringAST().substring(1));
		}
		for (int i = 0; i < node.getChildCount(); i++) {
			variables(node.getChild(i), found);
		}
		return found;
	}

	/**
	 * Returns a key written as {@code a + b + ...} split into its operands, so that a
	 * call evaluates each once and refuses a {@code null} part, or {@code null} for any
	 * other key.
	 */
	private @Nullable KeyParts parts(SpelNode ast) {
		if (!(ast instanceof OpPlus) || ast.getChildCount() != 2) {
			return null;
		}
		List<SpelNode> operands = new ArrayList<>();
		String combined = combine(ast, operands);
		List<Boolean> checked = new ArrayList<>(operands.size());
		for (SpelNode operand : operands) {
			checked.add(!(operand instanceof Literal));
		}
		return new KeyParts(List.copyOf(operands), List.copyOf(checked), this.evaluator.parsePart(combined));
	}

	/**
	 * Returns the text of the concatenation with every operand replaced by the variable
	 * that holds its value, keeping the grouping of the key; collects the operands in the
	 * order SpEL evaluates them.
	 */
	private static String combine(SpelNode node, List<SpelNode> operands) {
		if (node instanceof OpPlus && node.getChildCount() == 2) {
			return "(" + combine(node.getChild(0), operands) + " + " + combine(node.getChild(1), operands) + ")";
		}
		operands.add(node);
		return "#" + KeyParts.VARIABLE + (operands.size() - 1);
	}

	private @Nullable Duration duration(String description, String attribute, String text) {
		if (text.isBlank()) {
			return null;
		}
		String resolved = text;
		try {
			if (this.beanFactory instanceof ConfigurableBeanFactory factory) {
				String value = factory.resolveEmbeddedValue(text);
				if (value == null) {
					// a placeholder configurer's null value
					throw invalid(description, attribute, "\"" + text + "\" resolved to null", WRITE_A_DURATION);
				}
				resolved = value;
			}
			return DurationStyle.detectAndParse(resolved.trim());
		}
		catch (IllegalArgumentException ex) {
			throw invalid(description, attribute, "\"" + text + "\""
					+ (resolved.equals(text) ? "" : " (resolved to \"" + resolved + "\")") + " is not a duration",
					WRITE_A_DURATION);
		}
	}

	private @Nullable Duration leastTtl() {
		DistributedLockSettings settings = settings();
		return (settings != null) ? settings.getLeastTtl() : null;
	}

	private @Nullable Duration maxTtl() {
		DistributedLockSettings settings = settings();
		return (settings != null) ? settings.getMaxTtl() : null;
	}

	private @Nullable DistributedLockSettings settings() {
		BeanFactory factory = this.beanFactory;
		return (factory != null) ? factory.getBeanProvider(DistributedLockSettings.class).getIfAvailable() : null;
	}

	private static InvalidDistributedLockException invalid(String description, String attribute, String problem,
			String action) {
		return new InvalidDistributedLockException(
				"@DistributedLock on " + description + ": attribute " + attribute + " " + problem,
				action + "." + bareNumberHint(problem));
	}

	/** Says that a duration attribute given as a bare number ({@code "30"}) is in ms. */
	private static String bareNumberHint(String problem) {
		Matcher bare = BARE_NUMBER.matcher(problem);
		return bare.lookingAt() ? " A bare number is read as milliseconds: write \"" + bare.group(1) + "s\" for "
				+ bare.group(1) + " seconds" + "." : "";
	}

}
