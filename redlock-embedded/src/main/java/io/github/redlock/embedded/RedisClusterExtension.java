package io.github.redlock.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that runs {@link RedisCluster Redis Clusters} for a test class or a
 * test: one per member of the lock quorum.
 * <p>
 * In a {@code static} field, the clusters start once for the class (in parallel), are
 * {@link RedisCluster#heal() healed} after each test (faults undone, roles and slots as
 * they started, keys deleted), and stop after the class. In an instance field, each test
 * gets fresh clusters that stop after it. Either way every process stops when the tests
 * end, pass or fail.
 *
 * <pre class="code">
 * &#064;RegisterExtension
 * static final RedisClusterExtension clusters = RedisClusterExtension.clusters(3).masters(3).replicas(1);
 * </pre>
 *
 * @author redlock contributors
 */
public final class RedisClusterExtension
		implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

	private final int count;

	private final int masters;

	private final int replicas;

	private final Duration nodeTimeout;

	private volatile @Nullable List<RedisCluster> clusters;

	private volatile boolean perTest;

	private RedisClusterExtension(int count, int masters, int replicas, Duration nodeTimeout) {
		if (count < 1) {
			throw new IllegalArgumentException("At least one cluster, not " + count);
		}
		this.count = count;
		this.masters = masters;
		this.replicas = replicas;
		this.nodeTimeout = nodeTimeout;
	}

	/**
	 * Creates an extension for the given number of clusters, each of 3 masters without
	 * replicas until told otherwise.
	 * @param count how many clusters
	 * @return the extension
	 */
	public static RedisClusterExtension clusters(int count) {
		return new RedisClusterExtension(count, 3, 0, RedisCluster.DEFAULT_NODE_TIMEOUT);
	}

	/**
	 * Returns a copy of this extension whose clusters have the given number of masters.
	 * @param masters how many masters each cluster has
	 * @return the extension
	 */
	public RedisClusterExtension masters(int masters) {
		return new RedisClusterExtension(this.count, masters, this.replicas, this.nodeTimeout);
	}

	/**
	 * Returns a copy of this extension whose masters have the given number of replicas.
	 * @param replicasPerMaster how many replicas each master has
	 * @return the extension
	 */
	public RedisClusterExtension replicas(int replicasPerMaster) {
		return new RedisClusterExtension(this.count, this.masters, replicasPerMaster, this.nodeTimeout);
	}

	/**
	 * Returns a copy of this extension whose servers have the given
	 * {@code cluster-node-timeout}.
	 * @param nodeTimeout the node timeout
	 * @return the extension
	 */
	public RedisClusterExtension nodeTimeout(Duration nodeTimeout) {
		return new RedisClusterExtension(this.count, this.masters, this.replicas, nodeTimeout);
	}

	@Override
	public synchronized void beforeAll(ExtensionContext context) {
		if (this.clusters == null) {
			this.clusters = startClusters();
		}
	}

	@Override
	public void beforeEach(ExtensionContext context) {
		if (this.clusters == null) {
			this.perTest = true;
			this.clusters = startClusters();
		}
	}

	private List<RedisCluster> startClusters() {
		List<CompletableFuture<RedisCluster>> starting = new ArrayList<>();
		for (int i = 0; i < this.count; i++) {
			starting.add(startCluster(i));
		}
		List<RedisCluster> started = new ArrayList<>();
		RuntimeException failure = null;
		for (CompletableFuture<RedisCluster> future : starting) {
			try {
				started.add(future.join());
			}
			catch (CompletionException ex) {
				failure = (failure != null) ? failure : unwrap(ex);
			}
		}
		if (failure != null) {
			started.forEach(RedisCluster::close);
			throw failure;
		}
		return List.copyOf(started);
	}

	private CompletableFuture<RedisCluster> startCluster(int index) {
		return CompletableFuture
			.supplyAsync(() -> RedisCluster.start("c" + index, this.masters, this.replicas, this.nodeTimeout));
	}

	@Override
	public void afterEach(ExtensionContext context) {
		if (this.perTest) {
			stop();
		}
		else if (this.clusters != null) {
			healOrReplace();
		}
	}

	/**
	 * Heals every cluster, in parallel; one that cannot be healed is replaced by a fresh
	 * one, so that the next test starts clean, and the failure is reported for the test
	 * that left it so.
	 */
	// called after each test of a class whose clusters were started
	@SuppressWarnings("NullAway")
	private void healOrReplace() {
		List<RedisCluster> running = this.clusters;
		List<CompletableFuture<Void>> healing = running.stream()
			.map((cluster) -> CompletableFuture.runAsync(cluster::heal))
			.toList();
		List<RedisCluster> healed = new ArrayList<>(running);
		RuntimeException failure = null;
		for (int i = 0; i < running.size(); i++) {
			try {
				healing.get(i).join();
			}
			catch (CompletionException ex) {
				failure = (failure != null) ? failure : unwrap(ex);
				running.get(i).close();
				healed.set(i, startCluster(i).join());
			}
		}
		this.clusters = List.copyOf(healed);
		if (failure != null) {
			throw new IllegalStateException("A cluster could not be healed after the test and was started afresh",
					failure);
		}
	}

	private static RuntimeException unwrap(CompletionException ex) {
		return (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
	}

	@Override
	public void afterAll(ExtensionContext context) {
		stop();
	}

	private synchronized void stop() {
		List<RedisCluster> running = this.clusters;
		this.clusters = null;
		if (running != null) {
			RuntimeException failure = null;
			for (RedisCluster cluster : running) {
				try {
					cluster.close();
				}
				catch (RuntimeException ex) {
					failure = (failure != null) ? failure : ex;
				}
			}
			if (failure != null) {
				throw failure;
			}
		}
	}

	/**
	 * Returns the running clusters, one per member of the quorum.
	 * @return the clusters
	 */
	public List<RedisCluster> clusters() {
		List<RedisCluster> running = this.clusters;
		if (running == null) {
			throw new IllegalStateException("The clusters run only while a test runs");
		}
		return running;
	}

	/**
	 * Returns one running cluster.
	 * @param index its index, from 0
	 * @return the cluster
	 */
	public RedisCluster cluster(int index) {
		return clusters().get(index);
	}

	/**
	 * Returns the seed URIs of one running cluster.
	 * @param index its index, from 0
	 * @return the URIs
	 * @see RedisCluster#seedUris()
	 */
	public List<String> seedUris(int index) {
		return cluster(index).seedUris();
	}

	/**
	 * Returns the seed URIs of every running cluster, one list per cluster, in order.
	 * @return the URIs
	 */
	public List<List<String>> seedUris() {
		return clusters().stream().map(RedisCluster::seedUris).toList();
	}

}
