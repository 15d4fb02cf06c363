package io.github.redlock.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import io.github.redlock.Lease;
import io.github.redlock.embedded.RedisFleetExtension;
import io.github.redlock.embedded.RedisNode;
import io.github.redlock.engine.lease.RedlockLease;
import io.github.redlock.engine.node.Script;
import io.github.redlock.engine.waiting.Waiting;
import io.github.redlock.engine.waiting.WaitingLine;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Processes waiting for one key take turns (issue 27's cross-process herd): each node
 * keeps a queue of the processes whose attempts a holder refused, and a release names the
 * first in its hint, so that only that process tries. Each registry here stands for a
 * process. Their polls are 30 s apart, so every attempt after a release is one that a
 * hint set off; a node's refused attempts are its acquire scripts' {@code PTTL} calls.
 * <p>
 * Before the queue, every release woke the head waiter of every waiting process and of
 * the releasing one. Run with the engine's release sending no queue arguments (the
 * release as it was), {@link #aReleaseWakesOnlyTheProcessWhoseTurnItIs} failed with the
 * turns [D, C, B] and 6 attempts refused on node 0, and
 * {@link #aProcessThatReleasesWithAWaiterOfItsOwnLetsTheProcessNamedGoFirst} with the
 * turns [A2, B] (the releasing registry's own waiter first) and 3 attempts refused.
 */
class ProcessTurnsIntegrationTests {

	private static final String KEY = "turns";

	private static final String LOCK = "redlock:lock:{" + KEY + "}";

	private static final String QUEUE = "redlock:waiters:{" + KEY + "}";

	private static final Duration TTL = Duration.ofSeconds(30);

	private static final Duration WAIT = Duration.ofSeconds(60);

	@RegisterExtension
	static final RedisFleetExtension fleet = RedisFleetExtension.nodes(3);

	private final List<RedlockRegistry> registries = new ArrayList<>();

	/** How many registries wait subscribed to the key's hints. */
	private int subscribed;

	@AfterEach
	void close() {
		this.registries.forEach(RedlockRegistry::close);
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("FLUSHALL");
		}
	}

	@Test
	void aReleaseWakesOnlyTheProcessWhoseTurnItIs() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		RedlockRegistry b = registry(Duration.ofSeconds(30));
		RedlockRegistry c = registry(Duration.ofSeconds(30));
		RedlockRegistry d = registry(Duration.ofSeconds(30));
		Lease held = a.acquire(KEY, TTL, WAIT);
		CompletableFuture<Lease> forB = waitQueued(b);
		CompletableFuture<Lease> forC = waitQueued(c);
		CompletableFuture<Lease> forD = waitQueued(d);
		Thread.sleep(500); // the try each makes once subscribed is over
		long refusedBefore = NodeStats.calls(fleet.node(0), "pttl");
		List<String> order = new ArrayList<>();
		held.release();
		Lease next = first(order, forB, forC, forD);
		for (int i = 0; i < 2; i++) {
			Thread.sleep(300); // time for a woken waiter of another process to try
			next.release();
			next = first(order, forB, forC, forD);
		}
		Thread.sleep(300);
		long refused = NodeStats.calls(fleet.node(0), "pttl") - refusedBefore;
		next.release();
		System.out.printf("turns: %s, attempts refused on node 0: %d%n", order, refused);
		assertThat(order).as("who took the lock after each release").containsExactly("B", "C", "D");
		assertThat(refused).as("attempts refused on node 0 over the three hand-overs").isZero();
	}

	@Test
	void aProcessThatReleasesWithAWaiterOfItsOwnLetsTheProcessNamedGoFirst() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		a.parts().waiting().turn(Duration.ZERO); // A's turn ends with each release
		RedlockRegistry b = registry(Duration.ofSeconds(30));
		RedlockRegistry c = registry(Duration.ofSeconds(30));
		// C holds; A waits (queued, subscribed), then B: C's release gives A the turn,
		// and A holds while its subscription lingers (a line that subscribes tries once,
		// since a release may have been published before: not what is counted here)
		Lease heldByC = c.acquire(KEY, TTL, WAIT);
		CompletableFuture<Lease> forA1 = waitQueued(a);
		CompletableFuture<Lease> forB = waitQueued(b);
		CompletableFuture<Lease> forA2 = a.acquireAsync(KEY, TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> a.parts().waiting().waiters() == 2);
		heldByC.release();
		Lease heldByA1 = forA1.get(20, TimeUnit.SECONDS);
		long refusedBefore = NodeStats.calls(fleet.node(0), "pttl");
		List<String> order = new ArrayList<>();
		heldByA1.release();
		Lease next = CompletableFuture.anyOf(forB, forA2).thenApply(Lease.class::cast).get(20, TimeUnit.SECONDS);
		boolean bFirst = forB.isDone();
		order.add(bFirst ? "B" : "A2");
		Thread.sleep(300); // time for the other to try, were it woken
		long refused = NodeStats.calls(fleet.node(0), "pttl") - refusedBefore;
		next.release();
		next = (bFirst ? forA2 : forB).get(20, TimeUnit.SECONDS);
		order.add(bFirst ? "A2" : "B");
		next.release();
		System.out.printf("turns: %s, attempts refused on node 0 after A1's release: %d%n", order, refused);
		assertThat(order).as("who took the lock after each release").containsExactly("B", "A2");
		assertThat(refused).as("attempts refused on node 0 after A1's release").isZero();
	}

	/**
	 * A release that nobody waited for publishes nothing (and reads no queue:
	 * {@link #theQueueIsInStampOrderAndDropsDeadEntries}): an uncontended cycle runs 2
	 * commands fewer on each node (issue 27). Before, every release published its token:
	 * this test failed with 20 publishes on node 0 for 20 cycles.
	 */
	@Test
	void aReleaseThatNobodyWaitedForPublishesNothing() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		long published = NodeStats.calls(fleet.node(0), "publish");
		for (int i = 0; i < 20; i++) {
			a.acquire(KEY + i, TTL, WAIT).release();
		}
		a.close(); // every node's release answered
		assertThat(NodeStats.calls(fleet.node(0), "publish") - published).as("publishes on node 0").isZero();
	}

	/**
	 * A process that the nodes keep queued and whose poll a holder refuses queues again,
	 * in its place, which marks the holder's value: the release then looks at the queue
	 * and names it. Here the nodes forget both the entry and the mark while it waits.
	 * Before, a line that believed itself queued did not queue again: the mark stayed off
	 * and this test failed, the holder's value unmarked after every poll.
	 */
	@Test
	void aQueuedProcessThatAHolderRefusesQueuesAgainAndMarksTheHoldersValue() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		RedlockRegistry b = registry(Duration.ofMillis(200));
		Lease held = a.acquire(KEY, TTL, WAIT);
		// the acquisition returns at a quorum: its value reaches the last node a moment
		// later, and an attempt of B there first would take that node (KeyDB under load)
		await().atMost(Duration.ofSeconds(20))
			.until(() -> IntStream.range(0, 3).allMatch((i) -> fleet.node(i).call("GET", LOCK) != null));
		CompletableFuture<Lease> forB = waitQueued(b);
		for (int i = 0; i < 3; i++) {
			fleet.node(i).call("DEL", QUEUE);
			String value = (String) fleet.node(i).call("GET", LOCK);
			fleet.node(i).call("SET", LOCK, value.replace("+:", ":"), "KEEPTTL");
		}
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			for (int i = 0; i < 3; i++) {
				assertThat((String) fleet.node(i).call("GET", LOCK)).as("node %d's value", i).contains("+:");
				assertThat(String.valueOf(fleet.node(i).call("GET", QUEUE))).as("node %d's queue", i)
					.contains(b.parts().waiting().lineId());
			}
		});
		held.release();
		forB.get(20, TimeUnit.SECONDS).release();
	}

	/**
	 * A process keeps the turn for its own waiters for a while
	 * ({@link Waiting#TURN_NANOS}, a minute here): its release hands the lock to its next
	 * waiter, names itself so that the processes queued keep waiting, and leaves the
	 * queue as it is; once it has no waiter left, the release names the next process.
	 */
	@Test
	void aProcessKeepsTheTurnForItsOwnWaitersForAWhile() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		a.parts().waiting().turn(Duration.ofMinutes(1));
		RedlockRegistry b = registry(Duration.ofSeconds(30));
		Lease heldByA1 = a.acquire(KEY, TTL, WAIT);
		CompletableFuture<Lease> forB = waitQueued(b);
		CompletableFuture<Lease> forA2 = a.acquireAsync(KEY, TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> a.parts().waiting().waiters() == 1);
		Thread.sleep(500); // the try B made once subscribed is over
		long refusedBefore = NodeStats.calls(fleet.node(0), "pttl");
		heldByA1.release();
		Lease heldByA2 = forA2.get(20, TimeUnit.SECONDS);
		Thread.sleep(300); // time for B to try, were it woken
		assertThat(forB).isNotDone();
		String queue = String.valueOf(fleet.node(0).call("GET", "redlock:waiters:{" + KEY + "}"));
		heldByA2.release();
		forB.get(20, TimeUnit.SECONDS).release();
		long refused = NodeStats.calls(fleet.node(0), "pttl") - refusedBefore;
		assertThat(queue).as("node 0's queue while A kept the turn").contains(b.parts().waiting().lineId());
		assertThat(refused).as("attempts refused on node 0").isZero();
	}

	/**
	 * A lease lost while its registry kept the turn: its release, clean-up on the nodes
	 * that still hold its value, must not keep the turn (nobody in this registry is told
	 * of it, so nobody takes it) but look at the queue and name the next process. Here
	 * A's lease is lost while A keeps the turn (a minute) and has a waiter of its own,
	 * who tries at once, is refused by the lost value still on every node, and queues
	 * behind B. Before, the release kept the turn on every node: it named nobody and
	 * published nothing, and this failed with a TimeoutException on B's 5 s get (B's poll
	 * 30 s away).
	 */
	@Test
	void aLostLeasesReleaseNamesTheNextProcess() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		a.parts().waiting().turn(Duration.ofMinutes(1));
		RedlockRegistry b = registry(Duration.ofSeconds(30));
		RedlockLease held = (RedlockLease) a.acquireAsync(KEY, TTL, WAIT).get(20, TimeUnit.SECONDS);
		CompletableFuture<Lease> forB = waitQueued(b);
		CompletableFuture<Lease> forA2 = a.acquireAsync(KEY, TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> a.parts().waiting().waiters() == 1);
		held.markLost("the test says so");
		String id = a.parts().waiting().lineId();
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			for (int i = 0; i < 3; i++) {
				if (!String.valueOf(fleet.node(i).call("GET", QUEUE)).contains(id)) {
					return false;
				}
			}
			return WaitingLine.of(a.parts().waiting(), KEY).waitersAre(WaitingLine.Phase.SLEEPING);
		});
		held.release();
		forB.get(5, TimeUnit.SECONDS).release();
		forA2.get(20, TimeUnit.SECONDS).release();
	}

	/**
	 * A turn named for a process that died while it waited (its entry is first in the
	 * nodes' queues, and nothing takes it out) is lost, and the others, who wait for a
	 * hint naming them, find the key free at their next poll: the queue costs them a
	 * poll, never the lock.
	 */
	@Test
	void aTurnNamedForAProcessThatDiedLetsTheOthersInAtTheirPoll() throws Exception {
		RedlockRegistry a = registry(Duration.ofMillis(200));
		RedlockRegistry c = registry(Duration.ofMillis(200));
		Lease held = a.acquire(KEY, TTL, WAIT);
		for (int i = 0; i < 3; i++) {
			// queued a second before anyone here, for a minute
			assertThat(fleet.node(i)
				.call("EVAL", Script.QUEUE_WAITER.text(), "2", "redlock:lock:{" + KEY + "}",
						"redlock:waiters:{" + KEY + "}", String.valueOf(System.currentTimeMillis() - 1000), "died",
						"60000"))
				.isEqualTo(1L);
		}
		CompletableFuture<Lease> forC = waitQueued(c);
		CompletableFuture<Lease> forA2 = a.acquireAsync(KEY, TTL, WAIT);
		await().atMost(Duration.ofSeconds(20)).until(() -> a.parts().waiting().waiters() == 1);
		held.release();
		Lease first = CompletableFuture.anyOf(forC, forA2).thenApply(Lease.class::cast).get(20, TimeUnit.SECONDS);
		boolean cFirst = forC.isDone() && forC.join() == first;
		first.release();
		Lease second = (cFirst ? forA2 : forC).get(20, TimeUnit.SECONDS);
		second.release();
		assertThat(forC).isCompleted();
		assertThat(forA2).isCompleted();
	}

	/**
	 * A registry whose last waiter for the key gives up takes its line out of the nodes'
	 * queues, so that no release names it. Before, the entry stayed until the line's wait
	 * time would have ended, and the next release named a line that nobody waited in:
	 * this test failed with the line's id still in every node's queue.
	 */
	@Test
	void aLineWhoseWaitersAllGaveUpLeavesTheQueue() throws Exception {
		RedlockRegistry a = registry(Duration.ofSeconds(30));
		RedlockRegistry b = registry(Duration.ofSeconds(30));
		Lease held = a.acquire(KEY, TTL, WAIT);
		CompletableFuture<Lease> forB = waitQueued(b);
		forB.cancel(false);
		String id = b.parts().waiting().lineId();
		await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
			for (int i = 0; i < 3; i++) {
				assertThat(String.valueOf(fleet.node(i).call("GET", "redlock:waiters:{" + KEY + "}")))
					.as("node %d's queue", i)
					.doesNotContain(id);
			}
		});
		held.release();
	}

	/**
	 * The nodes' queue itself: in the order of the stamps the clients send (the same on
	 * every node, whatever order the scripts arrive in), without dead entries; queueing
	 * marks the holder's value after its secret, and a release of a marked value (or one
	 * the client asks to look) takes out the first live entry, names it, with "+" when
	 * others stay queued, and queues the releasing line behind the others when it still
	 * has waiters.
	 */
	@Test
	void theQueueIsInStampOrderAndDropsDeadEntries() throws Exception {
		RedisNode node = fleet.node(0);
		String someoneElse = "held-by-someone-else-000000";
		hold(node, someoneElse);
		assertThat(queueWaiter(node, "2000", "late", "60000")).isEqualTo(1L);
		assertThat(node.call("GET", LOCK)).isEqualTo(someoneElse + "+:host:1:main");
		assertThat((Long) node.call("PTTL", LOCK)).as("the mark keeps the holder's ttl").isPositive();
		assertThat(queueWaiter(node, "1000", "early", "60000")).isEqualTo(1L);
		assertThat(queueWaiter(node, "500", "dying", "1")).isEqualTo(1L);
		assertThat(node.call("GET", LOCK)).as("marked once").isEqualTo(someoneElse + "+:host:1:main");
		Thread.sleep(20);
		assertThat(queueWaiter(node, "1500", "middle", "60000")).isEqualTo(1L);
		assertThat(ids(node.call("GET", QUEUE))).containsExactly("early", "middle", "late");
		// a line queued again takes its new place
		assertThat(queueWaiter(node, "3000", "early", "60000")).isEqualTo(1L);
		assertThat(ids(node.call("GET", QUEUE))).containsExactly("middle", "late", "early");
		// a release by "early" of a marked value while it still has a waiter: names
		// "middle", with others behind it, and queues itself
		String early = "secret-of-early-00000000000";
		node.call("SET", LOCK, early + "+:host:1:main", "PX", "30000");
		long published = NodeStats.calls(node, "publish");
		assertThat(release(node, early, "7", "early,60000,4000,,")).isEqualTo(2L);
		assertThat(ids(node.call("GET", QUEUE))).containsExactly("late", "early");
		assertThat(NodeStats.calls(node, "publish")).isEqualTo(published + 1);
		// an unmarked value, the client not asking to look: released, the queue unread,
		// nothing published
		hold(node, early);
		assertThat(release(node, early, "8", "early,,,,")).isEqualTo(1L);
		assertThat(node.call("EXISTS", LOCK)).isEqualTo(0L);
		assertThat(ids(node.call("GET", QUEUE))).containsExactly("late", "early");
		assertThat(NodeStats.calls(node, "publish")).isEqualTo(published + 1);
		// the client asking to look, without a waiter left: names "late", takes itself
		// out, and nobody stays queued (no "+")
		hold(node, early);
		assertThat(release(node, early, "9", "early,,,,1")).isEqualTo(2L);
		assertThat(node.call("GET", QUEUE)).isNull();
		assertThat(NodeStats.calls(node, "publish")).isEqualTo(published + 2);
		// the key free: a late queuer is told, and queued nowhere
		assertThat(queueWaiter(node, "5000", "late", "60000")).isEqualTo(-2L);
		assertThat(node.call("GET", QUEUE)).isNull();
	}

	/**
	 * The hint a release publishes: "+" after the line named when other lines stay queued
	 * behind it, so that the named line's own release looks at the queue.
	 */
	@Test
	void aHintSaysWhetherOthersStayQueuedBehindTheLineNamed() throws Exception {
		RedisNode node = fleet.node(0);
		String holder = "secret-of-holder-0000000000";
		hold(node, holder);
		queueWaiter(node, "1000", "first", "60000");
		queueWaiter(node, "2000", "second", "60000");
		List<String> hints = new CopyOnWriteArrayList<>();
		RedisClient client = RedisClient.create("redis://127.0.0.1:" + node.port());
		try (StatefulRedisPubSubConnection<String, String> subscriber = client.connectPubSub()) {
			subscriber.addListener(new RedisPubSubAdapter<>() {
				@Override
				public void message(String channel, String message) {
					hints.add(message);
				}
			});
			subscriber.sync().subscribe(LOCK);
			assertThat(release(node, holder, "11", "holder,,,,")).isEqualTo(2L);
			hold(node, "secret-of-first-00000000000");
			assertThat(release(node, "secret-of-first-00000000000", "12", "first,,,,1")).isEqualTo(2L);
			await().atMost(Duration.ofSeconds(10)).until(() -> hints.size() == 2);
		}
		finally {
			client.shutdown();
		}
		assertThat(hints).containsExactly("11@first+", "12@second");
	}

	/** Sets the lock's key on the node as a holder's value: its secret, then an owner. */
	private static void hold(RedisNode node, String secret) {
		node.call("SET", LOCK, secret + ":host:1:main", "PX", "30000");
	}

	private static Object release(RedisNode node, String secret, String token, String spec) {
		return node.call("EVAL", Script.RELEASE.text(), "2", LOCK, QUEUE, secret, token, spec);
	}

	private static Object queueWaiter(RedisNode node, String stamp, String id, String waitMillis) {
		return node.call("EVAL", Script.QUEUE_WAITER.text(), "2", "redlock:lock:{" + KEY + "}",
				"redlock:waiters:{" + KEY + "}", stamp, id, waitMillis);
	}

	private static List<String> ids(Object queue) {
		List<String> ids = new ArrayList<>();
		for (String entry : String.valueOf(queue).split(";")) {
			ids.add(entry.split(",")[1]);
		}
		return ids;
	}

	/**
	 * Starts an acquisition in {@code registry} and waits until a holder refused it, it
	 * is queued on every node, and it sleeps subscribed to the release hints.
	 */
	private CompletableFuture<Lease> waitQueued(RedlockRegistry registry) {
		CompletableFuture<Lease> future = registry.acquireAsync(KEY, TTL, WAIT);
		String id = registry.parts().waiting().lineId();
		int expected = ++this.subscribed;
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			for (int i = 0; i < 3; i++) {
				Object queue = fleet.node(i).call("GET", "redlock:waiters:{" + KEY + "}");
				if (queue == null || !String.valueOf(queue).contains(id)) {
					return false;
				}
			}
			WaitingLine line = WaitingLine.of(registry.parts().waiting(), KEY);
			return line.waitersAre(WaitingLine.Phase.SLEEPING) && line.hinted() && subscribedEverywhere(expected);
		});
		return future;
	}

	private static boolean subscribedEverywhere(int registries) {
		for (int i = 0; i < 3; i++) {
			if (NodeStats.subscribers(fleet.node(i), "redlock:lock:{" + KEY + "}") < registries) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Waits for the first of the futures not yet taken, and notes whose it was.
	 */
	@SafeVarargs
	private static Lease first(List<String> order, CompletableFuture<Lease>... futures) throws Exception {
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			for (int i = 0; i < futures.length; i++) {
				if (futures[i].isDone() && !order.contains(String.valueOf((char) ('B' + i)))) {
					return true;
				}
			}
			return false;
		});
		for (int i = 0; i < futures.length; i++) {
			String name = String.valueOf((char) ('B' + i));
			if (futures[i].isDone() && !order.contains(name)) {
				order.add(name);
				return futures[i].get();
			}
		}
		throw new IllegalStateException("none done");
	}

	private RedlockRegistry registry(Duration retryDelay) {
		RedlockRegistry registry = TestRegistries.builder(fleet)
			.releaseHints(true)
			.retryDelay(retryDelay)
			.retryJitter(Duration.ZERO)
			.nodeTimeout(Duration.ofMillis(500))
			.connectTimeout(Duration.ofSeconds(10))
			.build()
			.start();
		this.registries.add(registry);
		return registry;
	}

}
