package io.github.redlock.engine;

import java.lang.reflect.Field;

import io.github.redlock.engine.kinds.LockKinds;
import io.github.redlock.engine.kinds.ReadWriteLocks;
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
