package io.github.redlock.benchmarks;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.List;

/**
 * The second JVM of the two-JVM scenarios, started by {@link ComparisonBenchmark} (never
 * by hand): builds the same four contenders over the same nodes, waits until its registry
 * counts every node, says {@code ready}, then runs its half of each run the benchmark JVM
 * asks for, over its standard input and output (its own logging goes to standard error).
 * It ends itself as soon as the benchmark JVM is gone: its input ends, or that process
 * exits.
 * <p>
 * Commands: {@code clock} (reply {@code clock <nanoTime>}), {@code stats} (reply
 * {@code stats <registry acquisitions> <fencing second rounds>}),
 * {@code handoff <contender> <key> <start> <end> <hold ns>} and
 * {@code onekey <contender> <key> <threads> <start> <end> <section ns>} (reply: its
 * holds, then {@code done <holds>}, or {@code failed <why>}), {@code quit}.
 */
public final class SecondJvmMain {

	private SecondJvmMain() {
	}

	/**
	 * Runs the second JVM.
	 * @param args the benchmark JVM's process id, then the node URIs
	 * @throws Exception if it could not start
	 */
	public static void main(String[] args) throws Exception {
		OutputStream protocol = new FileOutputStream(FileDescriptor.out);
		System.setOut(System.err); // nothing but the protocol on standard output
		long parent = Long.parseLong(args[0]);
		ProcessHandle.of(parent)
			.ifPresentOrElse((handle) -> handle.onExit().thenRun(SecondJvmMain::orphaned), SecondJvmMain::orphaned);
		List<String> uris = List.of(args).subList(1, args.length);
		BenchSettings settings = BenchSettings.fromSystemProperties();
		Link link = new Link(System.in, protocol);
		try (ContenderSet contenders = new ContenderSet(uris, settings)) {
			RegistryContender.Usable usable = contenders.registry()
				.awaitUsable(settings.ttl().multipliedBy(2).plusSeconds(60));
			link.send("ready", usable.waited().toMillis());
			serve(link, contenders);
		}
		catch (Exception | Error ex) {
			try {
				link.send("failed", describe(ex));
			}
			catch (RuntimeException unsent) {
				ex.addSuppressed(unsent);
			}
			throw ex;
		}
		System.exit(0);
	}

	private static void serve(Link link, ContenderSet contenders) throws IOException {
		String[] message;
		while ((message = link.read()) != null) {
			String[] words = (message.length > 1) ? message[1].split(" ") : new String[0];
			switch (message[0]) {
				case "clock" -> link.send("clock", System.nanoTime());
				case "stats" ->
					link.send("stats", contenders.registry().acquisitions(), contenders.registry().fencingRounds());
				case "handoff" -> {
					link.reset();
					Contender contender = contenders.all().get(Integer.parseInt(words[0]));
					run(link, () -> TwoJvmScenarios.handoffHalf(contender, link, words[1], false,
							Long.parseLong(words[2]), Long.parseLong(words[3]), Long.parseLong(words[4])));
				}
				case "onekey" -> {
					link.reset();
					Contender contender = contenders.all().get(Integer.parseInt(words[0]));
					run(link, () -> TwoJvmScenarios.oneKeyHalf(contender, words[1], Integer.parseInt(words[2]),
							Long.parseLong(words[3]), Long.parseLong(words[4]), Long.parseLong(words[5])));
				}
				case "quit" -> {
					return;
				}
				default -> link.send("failed", "unknown command '" + String.join(" ", message) + "'");
			}
		}
		orphaned(); // the input ended: the benchmark JVM is gone
	}

	/**
	 * Runs one half on a thread of its own, so that events keep being read meanwhile.
	 */
	private static void run(Link link, Half half) {
		Thread thread = new Thread(() -> {
			try {
				List<long[]> holds = half.run();
				link.sendHolds(holds);
				link.send("done", holds.size());
			}
			catch (Exception | Error ex) {
				link.send("stop");
				link.send("failed", describe(ex));
			}
		}, "second-jvm-run");
		thread.setDaemon(true);
		thread.start();
	}

	private static String describe(Throwable ex) {
		StringBuilder text = new StringBuilder(ex.toString());
		for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
			text.append("; caused by ").append(cause);
		}
		return text.toString();
	}

	private static void orphaned() {
		System.err.println("second JVM: the benchmark JVM is gone; ending");
		Runtime.getRuntime().halt(3);
	}

	@FunctionalInterface
	private interface Half {

		List<long[]> run() throws Exception;

	}

}
