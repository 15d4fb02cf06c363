package io.github.redlock.benchmarks;

import java.util.List;

/**
 * The four contenders over one set of nodes, in the order of the table's columns: this
 * registry, the bare quorum, {@code RedissonRedLock} and Redisson's single-node
 * {@code RLock}. Both JVMs build one from the same settings, so that an index names the
 * same contender in either.
 */
final class ContenderSet implements AutoCloseable {

	private final RegistryContender registry;

	private final BareQuorumContender bare;

	private final RedissonContenders redisson;

	private final List<Contender> all;

	ContenderSet(List<String> uris, BenchSettings settings) {
		RegistryContender registry = new RegistryContender(uris, settings.ttl(), settings.restartGuard());
		BareQuorumContender bare = null;
		try {
			bare = new BareQuorumContender(uris, settings.ttl(), settings.bareRetry());
			this.redisson = new RedissonContenders(uris, settings.ttl());
		}
		catch (RuntimeException ex) {
			if (bare != null) {
				bare.close();
			}
			registry.close();
			throw ex;
		}
		this.registry = registry;
		this.bare = bare;
		this.all = List.of(registry, bare, this.redisson.redLock(), this.redisson.singleNode());
	}

	RegistryContender registry() {
		return this.registry;
	}

	List<Contender> all() {
		return this.all;
	}

	@Override
	public void close() {
		try {
			this.redisson.close();
		}
		finally {
			try {
				this.bare.close();
			}
			finally {
				this.registry.close();
			}
		}
	}

}
