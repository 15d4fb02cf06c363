package io.github.redlock.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * What engine classes log, through {@code java.util.logging} (where commons-logging sends
 * it in these tests), as {@code "LEVEL message"} lines: for tests of what operators read.
 * Open it before the code under test runs, and close it after.
 */
final class LogCapture implements AutoCloseable {

	// held strongly: the log manager keeps loggers only weakly, with their handlers
	private final List<Logger> loggers = new ArrayList<>();

	private final List<Level> levels = new ArrayList<>();

	private final List<String> lines = new ArrayList<>();

	private final Handler handler = new Handler() {

		@Override
		public void publish(LogRecord record) {
			synchronized (LogCapture.this.lines) {
				StringBuilder line = new StringBuilder(record.getLevel() + " " + record.getMessage());
				for (Throwable ex = record.getThrown(); ex != null; ex = ex.getCause()) {
					line.append(" [").append(ex).append(']');
				}
				LogCapture.this.lines.add(line.toString());
			}
		}

		@Override
		public void flush() {
		}

		@Override
		public void close() {
		}

	};

	private LogCapture() {
	}

	/**
	 * Starts capturing what the given classes log at {@code level} and above.
	 */
	static LogCapture of(Level level, Class<?>... sources) {
		return of(level, Arrays.stream(sources).map(Class::getName).toArray(String[]::new));
	}

	/**
	 * Starts capturing what the named loggers (and those below them, such as
	 * {@code io.lettuce}) log at {@code level} and above, with the exceptions logged.
	 */
	static LogCapture of(Level level, String... names) {
		LogCapture capture = new LogCapture();
		for (String name : names) {
			Logger logger = Logger.getLogger(name);
			capture.loggers.add(logger);
			capture.levels.add(logger.getLevel());
			logger.setLevel(level);
			logger.addHandler(capture.handler);
		}
		return capture;
	}

	/**
	 * Returns the lines captured so far.
	 */
	List<String> lines() {
		synchronized (this.lines) {
			return List.copyOf(this.lines);
		}
	}

	/**
	 * Returns the lines captured so far that contain the given text.
	 */
	List<String> lines(String containing) {
		return lines().stream().filter((line) -> line.contains(containing)).toList();
	}

	@Override
	public void close() {
		for (int i = 0; i < this.loggers.size(); i++) {
			this.loggers.get(i).removeHandler(this.handler);
			this.loggers.get(i).setLevel(this.levels.get(i));
		}
	}

}
