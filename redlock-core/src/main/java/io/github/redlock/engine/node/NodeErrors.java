package io.github.redlock.engine.node;

import java.io.IOException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import javax.net.ssl.SSLException;

import io.github.redlock.NodeFailure;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisNoScriptException;

/**
 * Turns what Lettuce throws for one node into a {@link NodeFailure}: timed out, refused
 * (not connected, or the connection dropped), or an error the server answered.
 *
 * @author redlock contributors
 */
public final class NodeErrors {

	private final String node;

	private final String timeoutDetail;

	NodeErrors(String node, String timeoutDetail) {
		this.node = node;
		this.timeoutDetail = timeoutDetail;
	}

	NodeFailure classify(Throwable ex) {
		Throwable cause = unwrap(ex);
		if (cause instanceof RedisCommandTimeoutException) {
			return new NodeFailure(this.node, NodeFailure.Kind.TIMEOUT, this.timeoutDetail);
		}
		Throwable root = cause;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		String message = (root.getMessage() != null) ? root.getMessage() : root.getClass().getSimpleName();
		if (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")) {
			return new NodeFailure(this.node, NodeFailure.Kind.AUTH, message.strip() + " " + (message
				.startsWith("WRONGPASS")
						? "Check the node's user name and password (in its URI, or the registry's username and password)."
						: "The node needs a password: give it in the node's URI or as the registry's password."));
		}
		if (cause instanceof RedisCommandExecutionException) {
			return new NodeFailure(this.node, NodeFailure.Kind.ERROR, cause.getMessage());
		}
		if (cause instanceof RedisConnectionException || cause instanceof IOException || isDisconnected(cause)) {
			return new NodeFailure(this.node, NodeFailure.Kind.REFUSED, message + tlsAdvice(cause, message));
		}
		return new NodeFailure(this.node, NodeFailure.Kind.ERROR,
				(cause.getMessage() != null) ? cause.getMessage() : cause.getClass().getSimpleName());
	}

	private static String tlsAdvice(Throwable cause, String message) {
		boolean tls = false;
		for (Throwable ex = cause; ex != null && !tls; ex = (ex.getCause() != ex) ? ex.getCause() : null) {
			tls = ex instanceof SSLException;
		}
		if (!tls) {
			return "";
		}
		if (message.contains("subject alternative name") || message.contains("No name matching")) {
			return ". The node's TLS certificate is for another host name: connect by a name it has";
		}
		if (message.contains("certification path") || message.contains("PKIX")) {
			return ". The node's TLS certificate is not trusted: trust its CA (redlock.ssl.bundle, or the builder's sslOptions)";
		}
		return ". The TLS handshake failed: check the trust material and, if the node requires one, the client certificate";
	}

	/**
	 * Returns whether the server did not know a script's SHA (it restarted, or its
	 * scripts were flushed).
	 */
	static boolean isNoScript(Throwable ex) {
		Throwable cause = unwrap(ex);
		return cause instanceof RedisNoScriptException
				|| (cause.getMessage() != null && cause.getMessage().startsWith("NOSCRIPT"));
	}

	/**
	 * Returns whether the server refused a command or a key to this user: a plain
	 * {@code NOPERM}, or a script's error, which names only the script.
	 */
	static boolean isDenied(Throwable ex) {
		String message = unwrap(ex).getMessage();
		return message != null && (message.startsWith("NOPERM") || message.contains("can't run this command")
				|| message.contains("no permissions to"));
	}

	/**
	 * Returns whether the server does not know {@code EVAL} or {@code EVALSHA}: renamed
	 * away ({@code rename-command}), or a server built without Lua.
	 */
	static boolean isNoScripting(Throwable ex) {
		String message = unwrap(ex).getMessage();
		if (message == null || !message.startsWith("ERR unknown command")) {
			return false;
		}
		String lower = message.toLowerCase(java.util.Locale.ROOT);
		return lower.contains("'eval'") || lower.contains("'evalsha'") || lower.contains("`eval`")
				|| lower.contains("`evalsha`");
	}

	/**
	 * Returns whether a cluster master answered that it does not serve the key's slot
	 * now: {@code MOVED} or {@code ASK} (the slot is elsewhere, or moving),
	 * {@code TRYAGAIN} (some of the keys moved) or {@code CLUSTERDOWN}.
	 */
	static boolean isRedirect(Throwable ex) {
		String message = unwrap(ex).getMessage();
		return message != null && (message.startsWith("MOVED ") || message.startsWith("ASK ")
				|| message.startsWith("TRYAGAIN") || message.startsWith("CLUSTERDOWN"));
	}

	/**
	 * Returns the server's message of an error, without the wrappers around it.
	 */
	static String message(Throwable ex) {
		return String.valueOf(unwrap(ex).getMessage());
	}

	private static boolean isDisconnected(Throwable cause) {
		String message = cause.getMessage();
		return message != null && (message.contains("not connected") || message.contains("Connection closed")
				|| message.contains("Connection is closed"));
	}

	private static Throwable unwrap(Throwable ex) {
		Throwable cause = ex;
		while ((cause instanceof CompletionException || cause instanceof ExecutionException)
				&& cause.getCause() != null) {
			cause = cause.getCause();
		}
		return cause;
	}

}
