package io.github.redlock.engine.node;

import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Makes lock values: 20 bytes from {@link SecureRandom}, unique per acquisition, followed
 * by the owner's identity ({@code host:pid:thread}) so that an operator who looks at a
 * lock key sees who holds it.
 * <p>
 * <b>Invariants.</b> This class owns the value's layout, which the scripts are written
 * from ({@link Script} puts these numbers into their text): the secret, the first
 * {@link #SECRET_LENGTH} characters, alone proves ownership and is all a script that acts
 * on a held value compares; then either the owner's {@code :} or, on a value that a
 * waiting process marked, a {@link #MARK} before it; a secret shorter than
 * {@link #MIN_SECRET_LENGTH} never matches.
 *
 * @author redlock contributors
 */
public final class LockValues {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	private static final int MAX_THREAD_NAME = 64;

	/**
	 * Length of a value's secret part: 20 random bytes in unpadded URL-safe Base64. The
	 * scripts that act on a held lock are sent only this part (see {@link Script}).
	 */
	public static final int SECRET_LENGTH = 27;

	/**
	 * The mark a waiting process writes right after the secret, so that the holder's
	 * release looks at the key's queue.
	 */
	public static final char MARK = '+';

	/**
	 * The shortest secret a script accepts: shorter ones never match, so that no caller
	 * can match every value with an empty one.
	 */
	public static final int MIN_SECRET_LENGTH = 16;

	/**
	 * Returns whether a value is marked ({@link #MARK}) by a waiting process.
	 */
	public static boolean isMarked(String value) {
		return value.length() > SECRET_LENGTH && value.charAt(SECRET_LENGTH) == MARK;
	}

	private final SecureRandom random = new SecureRandom();

	private final String process;

	public LockValues() {
		this.process = ":" + hostName() + ":" + ProcessHandle.current().pid() + ":";
	}

	/**
	 * Returns the owner identity of the current thread, {@code :host:pid:thread}: taken
	 * on the caller's thread when an acquisition starts, since its attempts may run on
	 * the registry's threads.
	 */
	public String owner() {
		String thread = Thread.currentThread().getName();
		if (thread.length() > MAX_THREAD_NAME) {
			thread = thread.substring(0, MAX_THREAD_NAME);
		}
		return this.process + thread;
	}

	/**
	 * Returns a fresh lock value for an owner.
	 * @param owner the owner, from {@link #owner()}
	 */
	public String next(String owner) {
		byte[] bytes = new byte[20];
		this.random.nextBytes(bytes);
		return ENCODER.encodeToString(bytes) + owner;
	}

	/**
	 * Returns the secret part of a lock value, which alone proves ownership.
	 */
	public static String secret(String value) {
		return value.substring(0, SECRET_LENGTH);
	}

	/**
	 * Returns a short, one-way fingerprint of a value's secret part: enough to tell two
	 * acquisitions apart, useless to release or extend someone's lock.
	 */
	public static String fingerprint(String secret) {
		try {
			byte[] digest = MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8));
			return HexFormat.of().formatHex(digest, 0, 6);
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException("SHA-256 is not available", ex);
		}
	}

	private static String hostName() {
		String host = System.getenv("HOSTNAME");
		if (host == null || host.isBlank()) {
			try {
				host = InetAddress.getLocalHost().getHostName();
			}
			catch (Exception ex) {
				host = "unknown-host";
			}
		}
		return host.replace(':', '_');
	}

}
