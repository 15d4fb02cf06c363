package io.github.redlock.engine.node;

import java.nio.charset.StandardCharsets;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * The arguments of an {@code EVALSHA} of one of the engine's scripts, written straight
 * into the channel's buffer: the SHA, the number of keys, the keys and the arguments; or
 * of the {@code EVAL} that loads the script, with its text in place of the SHA
 * ({@link #byText}).
 * <p>
 * Lettuce's own arguments cost the client, for each key and value, a temporary buffer and
 * a slice of it, and for every argument's length a {@code String} and its bytes
 * ({@code Long.toString}): with the engine's 10 arguments to the acquire script and 7 to
 * the release on each node, kilobytes of garbage per acquire+release cycle on 5 nodes.
 * Here each string is written once, as UTF-8, behind a length written digit by digit.
 * <p>
 * The commands that carry these arguments go through Lettuce as any other (its command
 * stack, timeouts and reconnects); only their encoding differs, and they carry the
 * timeout of their call ({@link #timeoutNanos}), which {@link CommandTimeouts} hands
 * Lettuce. Their {@link #toString()} names the script, never a value: Lettuce logs
 * commands at DEBUG.
 *
 * @author redlock contributors
 */
public final class ScriptArgs extends CommandArgs<String, String> {

	private static final byte[] CRLF = { '\r', '\n' };

	private final Script script;

	private final String[] keys;

	private final String[] values;

	private final long timeoutNanos;

	private final boolean byText;

	public ScriptArgs(Script script, String[] keys, String[] values) {
		this(script, keys, values, 0, false);
	}

	/**
	 * @param timeoutNanos how long the command may wait for the node's reply, or
	 * {@code 0} for the node timeout
	 * @param byText whether the script's text goes in place of its SHA, for an
	 * {@code EVAL}
	 */
	ScriptArgs(Script script, String[] keys, String[] values, long timeoutNanos, boolean byText) {
		super(StringCodec.UTF8);
		this.script = script;
		this.keys = keys;
		this.values = values;
		this.timeoutNanos = timeoutNanos;
		this.byText = byText;
	}

	/**
	 * Returns ScriptArgs for an {@code EVAL} of the same call: the script's text in place
	 * of its SHA.
	 */
	ScriptArgs byText() {
		return new ScriptArgs(this.script, this.keys, this.values, this.timeoutNanos, true);
	}

	Script script() {
		return this.script;
	}

	/**
	 * Returns how long the command may wait for the node's reply, in ns, or {@code 0} for
	 * the node timeout.
	 */
	long timeoutNanos() {
		return this.timeoutNanos;
	}

	@Override
	public int count() {
		return 2 + this.keys.length + this.values.length;
	}

	@Override
	public void encode(ByteBuf buf) {
		if (this.byText) {
			writeString(buf, this.script.text());
		}
		else {
			buf.writeByte('$');
			writeDigits(buf, this.script.sha().length());
			buf.writeBytes(CRLF);
			buf.writeCharSequence(this.script.sha(), StandardCharsets.US_ASCII);
			buf.writeBytes(CRLF);
		}
		buf.writeByte('$');
		writeDigits(buf, digits(this.keys.length));
		buf.writeBytes(CRLF);
		writeDigits(buf, this.keys.length);
		buf.writeBytes(CRLF);
		for (String key : this.keys) {
			writeString(buf, key);
		}
		for (String value : this.values) {
			writeString(buf, value);
		}
	}

	private static void writeString(ByteBuf buf, String value) {
		int length = ByteBufUtil.utf8Bytes(value);
		buf.writeByte('$');
		writeDigits(buf, length);
		buf.writeBytes(CRLF);
		ByteBufUtil.reserveAndWriteUtf8(buf, value, length);
		buf.writeBytes(CRLF);
	}

	private static int digits(int value) {
		int digits = 1;
		for (int rest = value / 10; rest > 0; rest /= 10) {
			digits++;
		}
		return digits;
	}

	/** Writes a non-negative number in decimal, without allocating. */
	private static void writeDigits(ByteBuf buf, int value) {
		int divisor = 1;
		while (value / divisor >= 10) {
			divisor *= 10;
		}
		for (; divisor > 0; divisor /= 10) {
			buf.writeByte('0' + (value / divisor) % 10);
		}
	}

	@Override
	public String toString() {
		return "ScriptArgs [script=" + this.script.name() + ", " + this.keys.length + " keys, " + this.values.length
				+ " arguments]";
	}

	@Override
	public String toCommandString() {
		return toString();
	}

}
