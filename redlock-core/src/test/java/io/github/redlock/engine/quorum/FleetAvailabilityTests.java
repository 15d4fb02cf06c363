package io.github.redlock.engine.quorum;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import io.github.redlock.engine.node.QuorumMember;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The counts of one availability message agree with each other while nodes drop during it
 * (issue 41, item 6). Before, each count read the nodes again, and a node that dropped
 * between two reads was counted usable and down at once: "Redlock cannot lock at all: 2
 * of 5 nodes usable, 3 needed. 4 nodes are down or unreachable." Nodes here are stand-ins
 * that answer only what the messages read (whether each is up), since what is tested is
 * the arithmetic of one snapshot, not anything a server decides.
 */
class FleetAvailabilityTests {

	@Test
	void aNodeDroppingWhileTheMessageIsWrittenIsCountedOnce() {
		AtomicBoolean dropped = new AtomicBoolean();
		AtomicInteger readsAfterDrop = new AtomicInteger();
		List<QuorumMember> nodes = List.of(node("a", () -> true),
				// up when first read after the drop, down when read again
				node("b", () -> !dropped.get() || readsAfterDrop.getAndIncrement() == 0),
				node("c", () -> !dropped.get()), node("d", () -> !dropped.get()), node("e", () -> !dropped.get()));
		FleetAvailability availability = new FleetAvailability(nodes, new Quorum(5));
		List<String> warnings = new ArrayList<>();
		Logger logger = Logger.getLogger(FleetAvailability.class.getName());
		Handler handler = new Handler() {

			@Override
			public void publish(LogRecord record) {
				if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
					warnings.add(record.getMessage());
				}
			}

			@Override
			public void flush() {
			}

			@Override
			public void close() {
			}

		};
		logger.addHandler(handler);
		try {
			availability.start();
			dropped.set(true);
			availability.changed();
		}
		finally {
			logger.removeHandler(handler);
		}
		assertThat(warnings).filteredOn((line) -> line.startsWith("Redlock cannot lock at all"))
			.containsExactly(
					"Redlock cannot lock at all: 2 of 5 nodes usable, 3 needed. 3 nodes are down or" + " unreachable.");
	}

	private static QuorumMember node(String name, BooleanSupplier up) {
		return (QuorumMember) Proxy.newProxyInstance(QuorumMember.class.getClassLoader(),
				new Class<?>[] { QuorumMember.class }, (proxy, method, args) -> switch (method.getName()) {
					case "isUp" -> up.getAsBoolean();
					case "isTrusted" -> true;
					case "isSilent" -> false;
					case "countsFrom" -> Long.MAX_VALUE;
					case "toString" -> "redis://" + name;
					case "hashCode" -> System.identityHashCode(proxy);
					case "equals" -> proxy == args[0];
					default -> null;
				});
	}

}
