package io.github.redlock.engine;

/**
 * Reads, for the benchmarks, the counters that a registry's one lease timer
 * ({@code ExpiryChecks}) keeps for the engine's tests: how often it fired and how many
 * leases its firings looked at. In the engine's package because the registry hands its
 * parts to its own package only; nothing here changes the registry.
 */
public final class LeaseTimerCounts {

	private LeaseTimerCounts() {
	}

	/**
	 * Returns how many times the registry's lease timer fired so far.
	 * @param registry the registry
	 * @return its firings
	 */
	public static long firings(RedlockRegistry registry) {
		return registry.parts().expiryChecks().firings();
	}

	/**
	 * Returns how many leases the registry's lease timer's firings looked at so far (each
	 * that was due, to renew it or check its expiry).
	 * @param registry the registry
	 * @return the leases looked at
	 */
	public static long examined(RedlockRegistry registry) {
		return registry.parts().expiryChecks().examined();
	}

}
