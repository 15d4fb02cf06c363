package io.github.redlock.sample;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Component;

/**
 * A toy store that remembers the highest fencing token it has seen for each document and
 * rejects writes with a lower one: what a database does with a conditional update on a
 * version column. It is what keeps a paused, expired lock holder from overwriting newer
 * work.
 */
@Component
public class FencedStore {

	private static final Log logger = LogFactory.getLog(FencedStore.class);

	private final Map<String, Long> highestToken = new ConcurrentHashMap<>();

	private final Map<String, String> documents = new ConcurrentHashMap<>();

	/**
	 * Writes a document if the token is not older than the last accepted one.
	 * @return whether the write was accepted
	 */
	public boolean write(String name, String content, long token) {
		boolean[] accepted = new boolean[1];
		this.highestToken.compute(name, (key, highest) -> {
			if (highest != null && token < highest) {
				return highest;
			}
			accepted[0] = true;
			this.documents.put(name, content);
			return token;
		});
		logger.info((accepted[0] ? "Stored " : "REJECTED stale write to ") + name + " with token " + token
				+ " (highest seen " + this.highestToken.get(name) + ")");
		return accepted[0];
	}

	public String read(String name) {
		return this.documents.get(name);
	}

}
