package io.github.redlock.engine.node;

import java.time.Duration;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CommandTimeouts} gives a script call the timeout it carries, as Lettuce hands it
 * the command (wrapped for the async API), and the node timeout to any other.
 */
class CommandTimeoutsTests {

	private final CommandTimeouts timeouts = new CommandTimeouts(Duration.ofMillis(100), Duration.ofSeconds(1),
			Duration.ofSeconds(60));

	@Test
	void aScriptCallWaitsTheTimeoutItCarries() {
		ScriptArgs call = new ScriptArgs(Script.ACQUIRE, new String[] { "k" }, new String[] { "v" },
				Duration.ofMillis(20).toNanos(), false);
		assertThat(this.timeouts.getTimeout(command(CommandType.EVALSHA, call)))
			.isEqualTo(Duration.ofMillis(20).toNanos());
		assertThat(this.timeouts.getTimeout(command(CommandType.EVAL, call.byText())))
			.isEqualTo(Duration.ofMillis(20).toNanos());
	}

	@Test
	void aCallWithoutATimeoutWaitsTheNodeTimeout() {
		assertThat(this.timeouts.getTimeout(command(CommandType.EVALSHA,
				new ScriptArgs(Script.ACQUIRE, new String[] { "k" }, new String[] { "v" }))))
			.isEqualTo(Duration.ofMillis(100).toNanos());
		assertThat(this.timeouts.getTimeout(command(CommandType.GET, new CommandArgs<>(StringCodec.UTF8).addKey("k"))))
			.isEqualTo(Duration.ofMillis(100).toNanos());
	}

	@Test
	void aDeletionWaitsTheDeletionTimeoutWhateverItCarries() {
		ScriptArgs call = new ScriptArgs(Script.RELEASE, new String[] { "k" }, new String[] { "v" },
				Duration.ofMillis(20).toNanos(), false);
		CommandTimeouts.deleting(true);
		try {
			assertThat(this.timeouts.getTimeout(command(CommandType.EVALSHA, call)))
				.isEqualTo(Duration.ofSeconds(60).toNanos());
		}
		finally {
			CommandTimeouts.deleting(false);
		}
	}

	private static RedisCommand<String, String, Long> command(CommandType type, CommandArgs<String, String> args) {
		return new AsyncCommand<>(new Command<>(type, new IntegerOutput<>(StringCodec.UTF8), args));
	}

}
