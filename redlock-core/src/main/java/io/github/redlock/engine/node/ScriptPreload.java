package io.github.redlock.engine.node;

import java.util.List;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Sends the scripts of the lock path by their text, with arguments that make each return
 * before it writes anything, so that the node knows them before the first lock call after
 * a (re)connect. Without this, a node that restarted answered a release's SHA with
 * NOSCRIPT and the release sent the text again; but a release that timed out there (the
 * node paused, say) heard that NOSCRIPT too late, and the key stayed on the node for its
 * time to live.
 *
 * @author redlock contributors
 */
final class ScriptPreload {

	// the node's log category, which operators know, whichever part of it logs
	private static final Log logger = LogFactory.getLog(NodeClient.class);

	private ScriptPreload() {
	}

	/**
	 * Sends the lock path's scripts on {@code connection}, without waiting for the
	 * replies.
	 * @param scripts the scripts a lock call may send, as the kinds of lock declare them
	 * @param markerKey the node's marker key
	 * @param node the node, for the log
	 */
	static void load(StatefulRedisConnection<String, String> connection, List<Script> scripts, String markerKey,
			NodeAddress node) {
		// a key under the prefix (what the ACL allows) that is never a lock: the marker.
		// The acquire script stops at the marker check, the others at the ownership check
		// (an empty secret never matches)
		String[] keys = { markerKey, markerKey, markerKey };
		String[] args = { "", "1", "1", "" };
		try {
			for (Script script : scripts) {
				connection.async().eval(script.text(), ScriptOutputType.INTEGER, keys, args);
			}
		}
		catch (RuntimeException ex) {
			logger.debug("Could not load the lock scripts on " + node, ex);
		}
	}

}
