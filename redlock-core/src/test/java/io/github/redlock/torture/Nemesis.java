package io.github.redlock.torture;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redlock.embedded.FleetProxy;
import io.github.redlock.embedded.NodeProxy;
import io.github.redlock.embedded.NodeProxy.Direction;
import io.github.redlock.embedded.RedisFleet;
import io.github.redlock.embedded.RedisNode;

/**
 * Injects faults on a schedule drawn from a seed: kills and restarts nodes (keeping or
 * losing their data), crashes nodes back to an older snapshot of their data (one node, or
 * a quorum of three while the other two are paused), pauses nodes (SIGSTOP/SIGCONT),
 * slows them, black-holes a node (every client's link to it cut and held open, nothing
 * answered, nothing reset), pauses client JVMs for longer than their TTL, and disturbs
 * the network between clients and nodes through each client's {@link FleetProxy}:
 * partitions that give two clients majorities overlapping in one node, a client cut off
 * from a majority, replies that never come back, and one-way delays. At most two nodes
 * are disturbed at once by node faults, counting a restarted node until its restart guard
 * has let it back, so a quorum of the five always exists for a client the network lets
 * through, except while a quorum restarts from old snapshots (the guard then keeps every
 * quorum out for the maximum TTL, as it must); network faults do not count, since they
 * lose no data, and at most one network fault touches a client at once. Each node's
 * snapshot is taken at the start and again now and then, so a restore goes back over
 * acquisitions made since. Nodes with a fake clock also have their clocks moved within
 * the safety model's bounds ({@link ClockNemesis}), as they restart and while they run.
 */
final class Nemesis {

	/** The fault the run asserts happened, having gone back over acquisitions. */
	static final String QUORUM_RESTORED = Kind.QUORUM_RESTORED.label;

	/**
	 * Every kind of fault the nemesis draws; each is counted under its label, or its
	 * label followed by details.
	 */
	enum Kind {

		RESTART_KEEPING_DATA("restart keeping data", false),

		RESTART_LOSING_DATA("restart losing data", false),

		CRASH_TO_SNAPSHOT("crash back to an older snapshot (one node)", false),

		QUORUM_RESTORED("crash back to older snapshots (a quorum, the others paused), losing acquisitions", false),

		NODE_PAUSED("node paused", false),

		NODE_SLOWED("node slowed", false),

		BLACK_HOLE("black hole: one node cut from every client, links held open", false),

		CLIENT_PAUSED("client JVM paused past its TTL", false),

		OVERLAPPING_MAJORITIES("partition: two clients with majorities sharing one node", false),

		CUT_FROM_MAJORITY("partition: client cut off from a majority", false),

		REPLIES_CUT("network: replies from one node cut", false),

		ONE_WAY_DELAY("network: one-way delay to one node", false),

		CLOCK_SET_BACK("clock set back on a running node, within the bound", true),

		CLOCK_STEPPED_FORWARD("clock stepped forward by the drift allowance", true),

		RESTARTED_WITH_CLOCK_MOVED("restarted with its clock moved within the bound", true);

		final String label;

		final boolean clock;

		Kind(String label, boolean clock) {
			this.label = label;
			this.clock = clock;
		}

		/**
		 * Returns the kinds a run draws: the clock faults only where nodes have a fake
		 * clock.
		 */
		static List<Kind> drawn(boolean clocks) {
			return Arrays.stream(values()).filter((kind) -> clocks || !kind.clock).toList();
		}

	}

	private static final int MAX_DISTURBED = 2;

	/**
	 * A key each snapshot saves as "before" and that is set to "after" once it is taken.
	 */
	private static final String MARK = "nemesis:snapshot-mark";

	private final RedisFleet fleet;

	private final List<Process> clients;

	private final List<FleetProxy> networks;

	private final long[] networkBusyUntil;

	private final Random random;

	private final Duration ttl;

	private final Duration guard;

	private final long[] disturbedUntil;

	private final Map<String, AtomicInteger> faults = new ConcurrentHashMap<>();

	private final Map<String, AtomicInteger> skipped = new ConcurrentHashMap<>();

	/** Each node's fencing counters just after its last snapshot, by key. */
	private final Map<Integer, Map<String, Long>> snapshotCounters = new ConcurrentHashMap<>();

	private final ScheduledExecutorService endings = Executors.newSingleThreadScheduledExecutor();

	private final int keys;

	private final ClockNemesis clocks;

	Nemesis(RedisFleet fleet, List<Process> clients, List<FleetProxy> networks, long seed, int keys, Duration ttl,
			Duration maxTtl, ClockNemesis clocks) {
		this.clocks = clocks;
		clocks.reportTo(this::count, this::skip);
		this.keys = keys;
		this.fleet = fleet;
		this.clients = clients;
		this.networks = networks;
		this.networkBusyUntil = new long[clients.size()];
		this.random = new Random(seed);
		this.ttl = ttl;
		this.guard = maxTtl.plusSeconds(1);
		this.disturbedUntil = new long[fleet.size()];
	}

	void run(Duration duration) throws InterruptedException {
		long end = Long.MAX_VALUE;
		try {
			// snapshots with every key's counter in them, which later acquisitions move
			// past (a snapshot taken before a key's first acquisition would bring the
			// node back without its counter, which starts again from the clock)
			awaitCounters(Duration.ofSeconds(60));
			snapshotAll();
			// a quorum back from old snapshots at a third and two thirds of the run
			// whatever the draw, once no other node fault is under way
			long start = System.nanoTime();
			end = start + duration.toNanos();
			long[] staleQuorums = { start + duration.toNanos() / 3, start + duration.toNanos() * 2 / 3 };
			int staleQuorumsDone = 0;
			// and a quorum's clocks set back at half time
			long quorumSetBack = this.clocks.active() ? start + duration.toNanos() / 2 : Long.MAX_VALUE;
			while (System.nanoTime() < end) {
				Thread.sleep(300 + this.random.nextInt(500));
				if (System.nanoTime() > quorumSetBack) {
					this.clocks.setBackAll();
					quorumSetBack = Long.MAX_VALUE;
					continue;
				}
				if (staleQuorumsDone < staleQuorums.length && System.nanoTime() > staleQuorums[staleQuorumsDone]) {
					// retried until one went back over acquisitions made since its
					// snapshots
					if (disturbed(System.nanoTime()) == 0 && staleQuorum()) {
						staleQuorumsDone++;
					}
					continue;
				}
				int kind = this.random.nextInt(this.clocks.active() ? 14 : 12);
				if (kind == 12) {
					this.clocks.setBack();
					continue;
				}
				if (kind == 13) {
					this.clocks.stepForward();
					continue;
				}
				if (kind == 8) {
					snapshot(this.random.nextInt(this.fleet.size()));
					continue;
				}
				if (kind == 9) {
					staleQuorum();
					continue;
				}
				if (kind == 10) {
					blackHole();
					continue;
				}
				if (kind == 4) {
					pauseClient();
					continue;
				}
				if (kind > 4 && kind < 8) {
					disturbNetwork(kind);
					continue;
				}
				int node = this.random.nextInt(this.fleet.size());
				long now = System.nanoTime();
				if (this.disturbedUntil[node] > now || disturbed(now) >= MAX_DISTURBED) {
					skip("quorum protected");
					continue;
				}
				RedisNode target = this.fleet.node(node);
				System.out
					.println("NEMESIS " + System.nanoTime() + " node " + node + " " + target.uri() + " kind " + kind);
				if ((kind == 0 || kind == 1 || (kind == 11 && target.hasSnapshot()))
						&& this.clocks.beforeRestart(node)) {
					count(Kind.RESTARTED_WITH_CLOCK_MOVED.label);
				}
				switch (kind) {
					case 0 -> {
						target.restart(true);
						this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
						count(Kind.RESTART_KEEPING_DATA.label);
					}
					case 1 -> {
						target.restart(false);
						this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
						count(Kind.RESTART_LOSING_DATA.label);
					}
					case 11 -> {
						if (!target.hasSnapshot()) {
							skip("no snapshot");
							continue;
						}
						target.crashToSnapshot();
						this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
						count(Kind.CRASH_TO_SNAPSHOT.label);
					}
					case 2 -> {
						long pause = 300 + this.random.nextInt(1200);
						target.pause();
						this.disturbedUntil[node] = now + TimeUnit.MILLISECONDS.toNanos(pause + 200);
						this.endings.schedule(target::resume, pause, TimeUnit.MILLISECONDS);
						count(Kind.NODE_PAUSED.label);
					}
					default -> {
						long slow = 1000 + this.random.nextInt(1000);
						target.slow(Duration.ofMillis(50 + this.random.nextInt(100)));
						this.disturbedUntil[node] = now + TimeUnit.MILLISECONDS.toNanos(slow + 500);
						this.endings.schedule(target::unslow, slow, TimeUnit.MILLISECONDS);
						count(Kind.NODE_SLOWED.label);
					}
				}
			}
		}
		finally {
			this.endings.shutdown();
			this.endings.awaitTermination(1, TimeUnit.MINUTES);
			for (Process client : this.clients) {
				signal(client, "CONT");
			}
			// no flush: the clients are still running; nor clocks set right, which would
			// step forward those behind while they run: the run does it once they stopped
			this.networks.forEach(FleetProxy::heal);
			for (RedisNode node : this.fleet.nodes()) {
				node.unslow();
				node.resume();
				node.start();
			}
		}
	}

	private void awaitCounters(Duration atMost) throws InterruptedException {
		long deadline = System.nanoTime() + atMost.toNanos();
		while (System.nanoTime() < deadline) {
			boolean all = true;
			for (RedisNode node : this.fleet.nodes()) {
				all &= ((List<?>) node.call("KEYS", "redlock:fence:*")).size() >= this.keys;
			}
			if (all) {
				return;
			}
			Thread.sleep(200);
		}
		throw new IllegalStateException("The clients did not acquire every key on every node within " + atMost);
	}

	/**
	 * Takes the snapshot of every node that a later restore goes back to.
	 */
	private void snapshotAll() {
		for (int node = 0; node < this.fleet.size(); node++) {
			snapshot(node);
		}
	}

	private void snapshot(int node) {
		RedisNode target = this.fleet.node(node);
		if (target.isRunning() && !target.isPaused() && this.disturbedUntil[node] <= System.nanoTime()) {
			try {
				// a mark written before the snapshot and replaced after it tells a
				// restore that really went back to it
				target.call("SET", MARK, "before");
				target.snapshot();
				target.call("SET", MARK, "after");
				this.snapshotCounters.put(node, counters(target));
				System.out.println("NEMESIS " + System.nanoTime() + " node " + node + " snapshot taken");
			}
			catch (UncheckedIOException ex) {
				if (!target.binary().path().getFileName().toString().contains("keydb")) {
					throw ex;
				}
				// KeyDB 6.3.4 fails an assertion in SAVE now and then and dies
				// ('ckeysExpired == db->expireSize()', Snapchat/KeyDB#739, open): a crash
				// of its own, which the clients must survive like any other; the node
				// has no snapshot to go back to, so no snapshot fault picks it
				target.restart(false);
				this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
				System.out.println("NEMESIS " + System.nanoTime() + " node " + node
						+ " crashed on SAVE (KeyDB's own defect, Snapchat/KeyDB#739): restarted losing data");
				count("KeyDB crashed on SAVE (Snapchat/KeyDB#739), restarted losing data");
			}
		}
	}

	/**
	 * Crashes three nodes back to their snapshots at once, and slows the other two past
	 * the node timeout until the guard has let the three back, so that the first quorums
	 * after it are the three with old counters: the case that handed out tokens below
	 * earlier ones before nodes had a floor.
	 */
	private boolean staleQuorum() {
		long now = System.nanoTime();
		if (disturbed(now) > 0) {
			skip("quorum protected");
			return false;
		}
		List<Integer> nodes = new ArrayList<>();
		for (int i = 0; i < this.fleet.size(); i++) {
			nodes.add(i);
		}
		Collections.shuffle(nodes, this.random);
		// the nodes with a snapshot first (a KeyDB node that crashed on SAVE has none)
		nodes.sort(Comparator.comparing((Integer node) -> !this.fleet.node(node).hasSnapshot()));
		if (!this.fleet.node(nodes.get(2)).hasSnapshot()) {
			skip("fewer than three snapshots");
			return false;
		}
		for (int i = 0; i < 3; i++) {
			if (!movedOn(nodes.get(i))) {
				skip("no acquisition since a node's snapshot");
				return false;
			}
		}
		System.out
			.println("NEMESIS " + now + " stale quorum " + nodes.subList(0, 3) + ", paused " + nodes.subList(3, 5));
		long pauseMillis = this.guard.toMillis() + 3000 + this.random.nextInt(2000);
		for (int i = 3; i < 5; i++) {
			int node = nodes.get(i);
			RedisNode target = this.fleet.node(node);
			target.pause();
			this.disturbedUntil[node] = now + TimeUnit.MILLISECONDS.toNanos(pauseMillis + 200);
			this.endings.schedule(target::resume, pauseMillis, TimeUnit.MILLISECONDS);
		}
		boolean wentBack = true;
		int clocksMoved = 0;
		for (int i = 0; i < 3; i++) {
			int node = nodes.get(i);
			RedisNode target = this.fleet.node(node);
			clocksMoved += this.clocks.beforeRestart(node) ? 1 : 0;
			target.crashToSnapshot();
			this.disturbedUntil[node] = System.nanoTime() + this.guard.toNanos();
			wentBack &= "before".equals(target.call("GET", MARK));
		}
		if (!wentBack) {
			throw new IllegalStateException(
					"A node crashed back to its snapshot came back without the snapshot's data");
		}
		count(QUORUM_RESTORED);
		if (clocksMoved > 0) {
			count("quorum back from old snapshots with " + clocksMoved + " clock" + ((clocksMoved > 1) ? "s" : "")
					+ " moved within the bound");
		}
		return true;
	}

	/**
	 * Returns whether some key's counter on the node moved past where the node's last
	 * snapshot has it: a restore then loses an acquisition.
	 */
	private boolean movedOn(int node) {
		Map<String, Long> then = this.snapshotCounters.getOrDefault(node, Map.of());
		Map<String, Long> now = counters(this.fleet.node(node));
		return now.entrySet()
			.stream()
			.anyMatch((key) -> key.getValue() > then.getOrDefault(key.getKey(), Long.MAX_VALUE));
	}

	private Map<String, Long> counters(RedisNode node) {
		Map<String, Long> counters = new java.util.HashMap<>();
		for (int k = 0; k < this.keys; k++) {
			Object counter = node.call("GET", "redlock:fence:{k" + k + "}");
			if (counter != null) {
				counters.put("k" + k, Long.parseLong((String) counter));
			}
		}
		return counters;
	}

	/**
	 * Black-holes one node: every client's link to it is cut both ways and held open, so
	 * commands are neither answered nor refused, as with a host that drops packets, until
	 * the links heal.
	 */
	private void blackHole() {
		long now = System.nanoTime();
		int node = this.random.nextInt(this.fleet.size());
		if (this.disturbedUntil[node] > now || disturbed(now) >= MAX_DISTURBED) {
			skip("quorum protected");
			return;
		}
		for (long busy : this.networkBusyUntil) {
			if (busy > now) {
				skip("client's network already disturbed");
				return;
			}
		}
		long millis = 1000 + this.random.nextInt(3000);
		System.out.println("NEMESIS " + now + " black hole node " + node + " for " + millis + "ms");
		for (int client = 0; client < this.networks.size(); client++) {
			NodeProxy link = this.networks.get(client).node(node);
			link.cut();
			this.networkBusyUntil[client] = now + TimeUnit.MILLISECONDS.toNanos(millis + 100);
			this.endings.schedule(link::heal, millis, TimeUnit.MILLISECONDS);
		}
		this.disturbedUntil[node] = now + TimeUnit.MILLISECONDS.toNanos(millis + 200);
		count(Kind.BLACK_HOLE.label);
	}

	private void pauseClient() {
		Process client = this.clients.get(this.random.nextInt(this.clients.size()));
		long pause = this.ttl.toMillis() * 3 / 2 + this.random.nextInt((int) this.ttl.toMillis());
		signal(client, "STOP");
		this.endings.schedule(() -> signal(client, "CONT"), pause, TimeUnit.MILLISECONDS);
		count(Kind.CLIENT_PAUSED.label);
	}

	private void disturbNetwork(int kind) {
		long now = System.nanoTime();
		int a = this.random.nextInt(this.clients.size());
		int b = (a + 1 + this.random.nextInt(this.clients.size() - 1)) % this.clients.size();
		List<Integer> nodes = new ArrayList<>();
		for (int i = 0; i < this.fleet.size(); i++) {
			nodes.add(i);
		}
		Collections.shuffle(nodes, this.random);
		long millis = 500 + this.random.nextInt(1500);
		if (this.networkBusyUntil[a] > now || (kind == 5 && this.networkBusyUntil[b] > now)) {
			skip("client's network already disturbed");
			return;
		}
		FleetProxy network = this.networks.get(a);
		System.out.println("NEMESIS " + now + " network kind " + kind + " clients " + a + "," + b + " nodes " + nodes
				+ " for " + millis + "ms");
		switch (kind) {
			case 5 -> {
				// a reaches the first three nodes, b the last three: one node in common
				network.partition(nodes.get(3), nodes.get(4));
				this.networks.get(b).partition(nodes.get(0), nodes.get(1));
				healLater(b, millis);
				count(Kind.OVERLAPPING_MAJORITIES.label);
			}
			case 6 -> {
				network.partition(nodes.get(0), nodes.get(1), nodes.get(2));
				count(Kind.CUT_FROM_MAJORITY.label);
			}
			default -> {
				NodeProxy link = network.node(nodes.get(0));
				if (this.random.nextBoolean()) {
					link.cut(Direction.TO_CLIENT);
					count(Kind.REPLIES_CUT.label);
				}
				else {
					Direction direction = this.random.nextBoolean() ? Direction.TO_NODE : Direction.TO_CLIENT;
					link.delay(direction, Duration.ofMillis(20 + this.random.nextInt(180)));
					count(Kind.ONE_WAY_DELAY.label);
				}
			}
		}
		healLater(a, millis);
	}

	private void healLater(int client, long millis) {
		this.networkBusyUntil[client] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis + 100);
		FleetProxy network = this.networks.get(client);
		this.endings.schedule(network::heal, millis, TimeUnit.MILLISECONDS);
	}

	private int disturbed(long now) {
		int count = 0;
		for (long until : this.disturbedUntil) {
			if (until > now) {
				count++;
			}
		}
		return count;
	}

	private void count(String fault) {
		System.out.println("NEMESIS " + System.nanoTime() + " " + fault);
		this.faults.computeIfAbsent(fault, (name) -> new AtomicInteger()).incrementAndGet();
	}

	private void skip(String why) {
		System.out.println("NEMESIS " + System.nanoTime() + " skipped: " + why);
		this.skipped.computeIfAbsent(why, (name) -> new AtomicInteger()).incrementAndGet();
	}

	/**
	 * Returns the faults injected, by kind.
	 */
	Map<String, AtomicInteger> faults() {
		return this.faults;
	}

	/**
	 * Returns the faults drawn but not injected, by why not.
	 */
	Map<String, AtomicInteger> skipped() {
		return this.skipped;
	}

	static void signal(Process process, String signal) {
		try {
			new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).inheritIO()
				.start()
				.waitFor(10, TimeUnit.SECONDS);
		}
		catch (Exception ex) {
			throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed", ex);
		}
	}

}
