package io.github.redlock.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The herd's other JVMs ({@link SecondJvm}s), started at once so that their start-up
 * overlaps the restart guard's wait, and ended on every exit path.
 */
final class HerdJvms implements AutoCloseable {

	private final List<SecondJvm> jvms = new ArrayList<>();

	HerdJvms(BenchSettings settings, List<String> uris, int count) throws IOException {
		try {
			for (int i = 0; i < count; i++) {
				this.jvms.add(SecondJvm.start(settings, uris));
			}
		}
		catch (IOException | RuntimeException ex) {
			try {
				close();
			}
			catch (InterruptedException interrupted) {
				Thread.currentThread().interrupt();
				ex.addSuppressed(interrupted);
			}
			throw ex;
		}
	}

	List<SecondJvm> jvms() {
		return this.jvms;
	}

	/**
	 * Waits until every one of them is ready; returns whether there are any and all are.
	 */
	boolean ready(Duration timeout) {
		if (this.jvms.isEmpty()) {
			return false;
		}
		try {
			for (SecondJvm jvm : this.jvms) {
				jvm.reply("ready", timeout.plusSeconds(30));
			}
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
		catch (RuntimeException ex) {
			System.out.println("the herd's JVMs were not ready, so the herd is not measured: " + ex);
			return false;
		}
	}

	@Override
	public void close() throws InterruptedException {
		for (SecondJvm jvm : this.jvms) {
			jvm.close();
		}
	}

}
