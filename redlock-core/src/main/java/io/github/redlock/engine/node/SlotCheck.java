package io.github.redlock.engine.node;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.models.partitions.ClusterPartitionParser;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

/**
 * The restart guard's check of one master of a cluster member, for every slot it owns: it
 * creates a missing marker, reads the slot's owner stamp, decides what happened to the
 * slot since ({@link OwnerChange}), and writes this master's stamp, replacing the marker
 * after a failover so that every client treats the slot as one that lost its data
 * ({@link Script#SLOT_MARKER}, {@link Script#SLOT_STAMP}). Every slot is one script on
 * one connection, pipelined; the second script goes only to slots whose stamp is not this
 * master's already, so that a check after a reconnect costs one script per slot.
 * <p>
 * A server that is not a master by its own {@code CLUSTER NODES}, or owns no slot, fails
 * the check: it answers for no key, and its trust vouches for nothing.
 *
 * @author redlock contributors
 */
final class SlotCheck {

	/**
	 * How many scripts go out before the check waits for their replies: few enough that a
	 * loaded server answers the last of them within the node timeout.
	 */
	private static final int BATCH = 128;

	private SlotCheck() {
	}

	/**
	 * What one check found: per slot owned, the marker there now and whether it was made
	 * (created or replaced) by this check; and the node's clock.
	 */
	record Result(int[] slots, String[] markers, boolean[] created, long nodeMicros, List<String> failedOver) {
	}

	/**
	 * Runs the check on one connection.
	 * @param commands the master's connection
	 * @param keys where the slots' markers and stamps are
	 * @return a future of what it found, failed if the server is not a master with slots
	 */
	static CompletableFuture<Result> run(RedisAsyncCommands<String, String> commands, KeyLayout keys) {
		// loaded first, on the same connection: the scripts by SHA that follow run after
		// it
		commands.scriptLoad(Script.SLOT_MARKER.text());
		commands.scriptLoad(Script.SLOT_STAMP.text());
		return OwnerChange.Master.read(commands)
			.thenCombine(commands.clusterNodes().toCompletableFuture(),
					(self, nodes) -> new Check(commands, keys, self, ClusterPartitionParser.parse(nodes)))
			.thenCompose(Check::markers)
			.thenCompose(Check::stamps);
	}

	/**
	 * Reads which slots the server owns, by its own {@code CLUSTER NODES}: none unless it
	 * is a master.
	 * @param commands the master's connection
	 * @return a future of the slots, in order
	 */
	static CompletableFuture<int[]> owned(RedisAsyncCommands<String, String> commands) {
		return commands.clusterNodes().toCompletableFuture().thenApply((nodes) -> {
			RedisClusterNode myself = myself(ClusterPartitionParser.parse(nodes));
			return (myself == null || !isMaster(myself)) ? new int[0]
					: myself.getSlots().stream().mapToInt(Integer::intValue).sorted().toArray();
		});
	}

	private static @Nullable RedisClusterNode myself(Partitions topology) {
		return topology.stream().filter((node) -> node.is(RedisClusterNode.NodeFlag.MYSELF)).findFirst().orElse(null);
	}

	private static boolean isMaster(RedisClusterNode node) {
		return node.is(RedisClusterNode.NodeFlag.UPSTREAM) || node.is(RedisClusterNode.NodeFlag.MASTER);
	}

	private static final class Check {

		private final RedisAsyncCommands<String, String> commands;

		private final KeyLayout keys;

		private final OwnerChange.Master self;

		private final Partitions topology;

		private int[] slots;

		private String[] markers;

		private boolean[] created;

		private String[] stamps;

		private long nodeMicros;

		// markers() makes the arrays: it is the check's first step
		@SuppressWarnings("NullAway.Init")
		Check(RedisAsyncCommands<String, String> commands, KeyLayout keys, OwnerChange.Master self,
				Partitions topology) {
			this.commands = commands;
			this.keys = keys;
			this.self = self;
			this.topology = topology;
		}

		CompletableFuture<Check> markers() {
			RedisClusterNode myself = myself(this.topology);
			if (myself == null || !isMaster(myself)) {
				return CompletableFuture.failedFuture(new IllegalStateException("it is not a cluster master"));
			}
			this.slots = myself.getSlots().stream().mapToInt(Integer::intValue).sorted().toArray();
			if (this.slots.length == 0) {
				return CompletableFuture.failedFuture(new IllegalStateException("it is a master of no slot"));
			}
			int count = this.slots.length;
			this.markers = new String[count];
			this.created = new boolean[count];
			this.stamps = new String[count];
			return inBatches(0, count, (index) -> {
				int slot = this.slots[index];
				String[] slotKeys = { this.keys.slotMarkerKey(slot), this.keys.slotOwnerKey(slot) };
				return this.commands
					.<List<Object>>evalsha(Script.SLOT_MARKER.sha(), ScriptOutputType.MULTI, slotKeys,
							RestartGuardState.markerId(), this.self.stamp())
					.toCompletableFuture()
					.thenAccept((reply) -> {
						this.markers[index] = (String) reply.get(0);
						this.created[index] = ((Long) reply.get(3)) == 1;
						this.stamps[index] = (String) reply.get(4);
						if (index == count - 1) {
							this.nodeMicros = TimeUnit.SECONDS.toMicros(Long.parseLong((String) reply.get(1)))
									+ Long.parseLong((String) reply.get(2));
						}
					});
			}).thenApply((ignored) -> this);
		}

		/**
		 * Sends one script per index, {@link #BATCH} at a time, each batch once the one
		 * before was answered: a master of every slot is asked 16,384 times, and each
		 * command must be answered within the node timeout of its sending.
		 */
		private CompletableFuture<Void> inBatches(int from, int to, IntFunction<CompletableFuture<Void>> script) {
			if (from >= to) {
				return CompletableFuture.completedFuture(null);
			}
			int end = Math.min(to, from + BATCH);
			List<CompletableFuture<Void>> replies = new ArrayList<>(end - from);
			CommandTimeouts.checking(true);
			try {
				for (int i = from; i < end; i++) {
					replies.add(script.apply(i));
				}
			}
			finally {
				CommandTimeouts.checking(false);
			}
			return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
				.thenCompose((ignored) -> inBatches(end, to, script));
		}

		CompletableFuture<Result> stamps() {
			String stamp = this.self.stamp();
			List<Integer> changed = new ArrayList<>();
			List<Boolean> replaced = new ArrayList<>();
			List<String> failedOver = new ArrayList<>();
			for (int i = 0; i < this.slots.length; i++) {
				if (this.created[i]) {
					continue; // created with this master's stamp
				}
				OwnerChange change = OwnerChange.judge(this.stamps[i], true, this.self, this.topology);
				if (change != OwnerChange.UNCHANGED) {
					changed.add(i);
					replaced.add(change == OwnerChange.FAILED_OVER);
					if (change == OwnerChange.FAILED_OVER) {
						failedOver.add(String.valueOf(this.slots[i]));
					}
				}
			}
			return inBatches(0, changed.size(), (n) -> {
				int index = changed.get(n);
				int slot = this.slots[index];
				String[] slotKeys = { this.keys.slotMarkerKey(slot), this.keys.slotOwnerKey(slot) };
				String read = (this.stamps[index] != null) ? this.stamps[index] : "";
				return this.commands
					.<String>evalsha(Script.SLOT_STAMP.sha(), ScriptOutputType.VALUE, slotKeys, read, stamp,
							replaced.get(n) ? RestartGuardState.markerId() : "")
					.toCompletableFuture()
					.thenAccept((marker) -> {
						if (!marker.equals(this.markers[index])) {
							// replaced, by this check or another client's that judged the
							// same failover: a marker made just now
							this.markers[index] = marker;
							this.created[index] = true;
						}
					});
			}).thenApply((ignored) -> new Result(this.slots, this.markers, this.created, this.nodeMicros, failedOver));
		}

	}

}
