package io.github.redlock.engine;

import java.lang.reflect.Field;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;

import io.github.redlock.engine.kinds.LockKinds;
import io.github.redlock.engine.kinds.ReadWriteLocks;
import io.github.redlock.engine.node.NodeClient;
import io.github.redlock.engine.quorum.NodeFleet;
import net.bytebuddy.agent.ByteBuddyAgent;
import net.bytebuddy.agent.builder.AgentBuilder;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import net.bytebuddy.matcher.ElementMatchers;

/**
 * Deliberately broken engines, for showing that a checker can fail. Test code only: the
 * main code has no switch that breaks it.
 */
public final class BrokenEngines {

	/**
	 * The node clients whose floor {@link #floorAndStartRemoved} took out; public for the
	 * advice that {@link NodeClient#floor()} runs.
	 */
	public static final Set<Object> FLOORLESS = Collections
		.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

	/**
	 * The fleets whose counter start {@link #floorAndStartRemoved} took out; public for
	 * the advice that {@link NodeFleet#fencingStart()} runs.
	 */
	public static final Set<Object> STARTLESS = Collections
		.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));

	private static boolean floorAdviceInstalled;

	private BrokenEngines() {
	}

	/**
	 * Takes out of every acquisition this registry sends both things that lift a counter
	 * a node came back with: the restart guard's floor (each node's floor goes to the
	 * acquire scripts empty, as if they had none) and the counter's start (sent as 1, as
	 * if the nodes' clocks stood at the epoch), so a node that came back with old
	 * counters hands out tokens from them. Either alone keeps tokens rising (the safety
	 * model's argument), hence both. Other registries of the JVM keep theirs. Installs a
	 * Byte Buddy agent in the JVM on first use.
	 * @param registry the registry to break
	 */
	public static synchronized void floorAndStartRemoved(RedlockRegistry registry) {
		if (!floorAdviceInstalled) {
			ByteBuddyAgent.install();
			new AgentBuilder.Default().disableClassFormatChanges()
				.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
				.type(ElementMatchers.named(NodeClient.class.getName()))
				.transform((builder, type, loader, module, domain) -> builder
					.visit(Advice.to(NoFloor.class).on(ElementMatchers.named("floor"))))
				.installOn(ByteBuddyAgent.getInstrumentation());
			new AgentBuilder.Default().disableClassFormatChanges()
				.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
				.type(ElementMatchers.named(NodeFleet.class.getName()))
				.transform((builder, type, loader, module, domain) -> builder
					.visit(Advice.to(NoStart.class).on(ElementMatchers.named("fencingStart"))))
				.installOn(ByteBuddyAgent.getInstrumentation());
			floorAdviceInstalled = true;
		}
		FLOORLESS.addAll(registry.parts().fleet.nodes());
		STARTLESS.add(registry.parts().fleet);
	}

	/** Sends an empty floor (none) for the node clients in {@link #FLOORLESS}. */
	public static final class NoFloor {

		private NoFloor() {
		}

		@Advice.OnMethodExit
		public static void exit(@Advice.This Object node, @Advice.Return(readOnly = false) String floor) {
			if (FLOORLESS.contains(node)) {
				floor = "";
			}
		}

	}

	/** Sends a counter start of 1 for the fleets in {@link #STARTLESS}. */
	public static final class NoStart {

		private NoStart() {
		}

		@Advice.OnMethodExit
		public static void exit(@Advice.This Object fleet, @Advice.Return(readOnly = false) String start) {
			if (STARTLESS.contains(fleet)) {
				start = "1";
			}
		}

	}

	private static boolean failoverAdviceInstalled;

	/** Whether {@link FailoverBlind} is on; public for the advice. */
	public static volatile boolean failoverBlind;

	/**
	 * Makes every registry of this JVM take a cluster slot's failover for a migration,
	 * while {@code blind}: the promoted master keeps the slot's marker and counts at
	 * once, although it may lack writes its former master acknowledged. Installs a Byte
	 * Buddy agent in the JVM on first use.
	 */
	public static synchronized void failoverTakenForMigration(boolean blind) {
		failoverBlind = blind;
		if (failoverAdviceInstalled || !blind) {
			return;
		}
		new AgentBuilder.Default().disableClassFormatChanges()
			.with(AgentBuilder.RedefinitionStrategy.RETRANSFORMATION)
			.with(AgentBuilder.Listener.StreamWriting.toSystemError().withErrorsOnly())
			.type(ElementMatchers.named("io.github.redlock.engine.node.OwnerChange"))
			.transform((builder, type, loader, module, domain) -> builder
				.visit(Advice.to(FailoverBlind.class).on(ElementMatchers.named("judge"))))
			.installOn(ByteBuddyAgent.install());
		failoverAdviceInstalled = true;
	}

	/** Answers "migrated" where a slot failed over. */
	public static final class FailoverBlind {

		private FailoverBlind() {
		}

		@Advice.OnMethodExit
		public static void exit(@Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object change) {
			if (BrokenEngines.failoverBlind && change != null && change.toString().equals("FAILED_OVER")) {
				for (Object constant : change.getClass().getEnumConstants()) {
					if (constant.toString().equals("MIGRATED")) {
						change = constant;
					}
				}
			}
		}

	}

	/**
	 * Makes the registry count a lock as held, and an extension as made, once a single
	 * node agreed: two clients that race then both hold the lock.
	 * @param registry the registry to break
	 */
	public static void quorumOfOne(RedlockRegistry registry) {
		try {
			Field quorumField = NodeFleet.class.getDeclaredField("quorum");
			quorumField.setAccessible(true);
			Object quorum = quorumField.get(registry.parts().fleet);
			Field majority = quorum.getClass().getDeclaredField("majority");
			majority.setAccessible(true);
			majority.setInt(quorum, 1);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("NodeFleet has no quorum (with a majority) to break", ex);
		}
		if (registry.quorum() != 1) {
			throw new IllegalStateException("The quorum stayed " + registry.quorum());
		}
	}

	/**
	 * Makes a waiting writer's mark live for a millisecond, so that it no longer keeps
	 * new readers out: a stream of readers then starves the writer.
	 * @param registry the registry to break
	 */
	public static void writerMarkGone(RedlockRegistry registry) {
		try {
			Field readWrite = LockKinds.class.getDeclaredField("readWrite");
			readWrite.setAccessible(true);
			Field mark = ReadWriteLocks.class.getDeclaredField("markTtlMillis");
			mark.setAccessible(true);
			mark.set(readWrite.get(registry.parts().kinds), "1");
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("The writer's mark has moved: break it where it lives now", ex);
		}
	}

}
