package io.github.redlock.engine.node;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ScriptArgs} writes the bytes Lettuce's {@code evalsha} (and, by text, its
 * {@code eval}) writes, for keys and values of any length and any characters, and any
 * number of keys. With its key count written as one digit whatever its length, the 10-
 * and 12-key cases failed.
 */
class ScriptArgsTests {

	@ParameterizedTest
	@ValueSource(ints = { 0, 1, 3, 9, 10, 12 })
	void writesWhatLettuceWrites(int keyCount) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < keyCount; i++) {
			keys.add("redlock:lock:" + "k".repeat(i * 37) + ((i % 2 == 0) ? "ключ-鍵-🔒" : ""));
		}
		String[] values = { "", "0", "9", "10", "secret-part-000000000000000:host:1234:main-thread", "x".repeat(99),
				"y".repeat(100), "z".repeat(12_345), "日本語の値", "a,b,,1," };
		for (Script script : List.of(Script.ACQUIRE, Script.RELEASE)) {
			String[] keyArray = keys.toArray(new String[0]);
			assertThat(encode(new ScriptArgs(script, keyArray, values)))
				.isEqualTo(encode(new CommandArgs<>(StringCodec.UTF8).add(script.sha())
					.add(keyArray.length)
					.addKeys(keyArray)
					.addValues(values)));
			assertThat(encode(new ScriptArgs(script, keyArray, values, 1_000_000, false).byText()))
				.isEqualTo(encode(new CommandArgs<>(StringCodec.UTF8).add(script.text())
					.add(keyArray.length)
					.addKeys(keyArray)
					.addValues(values)));
		}
	}

	private static String encode(CommandArgs<String, String> args) {
		ByteBuf buf = Unpooled.buffer();
		try {
			new Command<>(CommandType.EVALSHA, new IntegerOutput<>(StringCodec.UTF8), args).encode(buf);
			return buf.toString(StandardCharsets.UTF_8);
		}
		finally {
			buf.release();
		}
	}

}
