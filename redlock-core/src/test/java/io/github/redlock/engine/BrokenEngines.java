package io.github.redlock.engine;

import java.lang.reflect.Field;

import io.github.redlock.engine.quorum.NodeFleet;

/**
 * Deliberately broken engines, for showing that a checker can fail. Test code only: the
 * main code has no switch that breaks it.
 */
public final class BrokenEngines {

	private BrokenEngines() {
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
			Object quorum = quorumField.get(registry.fleet());
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

}
