package io.github.redlock.endpoint;

import java.security.Principal;

import io.github.redlock.LockKeys;
import io.github.redlock.engine.RedlockRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * {@link EndpointWebExtension @EndpointWebExtension} of the {@link RedlockEndpoint}:
 * {@code DELETE /actuator/redlock/{key}} takes the leases this instance holds on a key
 * from a holder that hangs ({@link RedlockRegistry#revoke}), so that its work hears
 * {@code LockLostException} as for any lost lock and another instance can acquire at
 * once, rather than after {@code redlock.max-hold}.
 * <p>
 * Off unless {@code redlock.endpoint.release.enabled=true}: a refused call answers 403
 * and is logged and kept as an event, as every release is, with the caller's principal.
 * The work that held the lock keeps running without it until it next checks: a fencing
 * token is what protects a store from it meanwhile. A key this instance holds no lease on
 * answers 404 (another instance may hold it: {@code GET /actuator/redlock/{key}} shows
 * who); an invalid key, 400.
 *
 * @author redlock contributors
 */
@EndpointWebExtension(endpoint = RedlockEndpoint.class)
public class RedlockEndpointWebExtension {

	private static final Log logger = LogFactory.getLog(RedlockEndpointWebExtension.class);

	private final RedlockRegistry registry;

	private final RedlockEvents events;

	private final boolean releaseEnabled;

	/**
	 * Creates the extension.
	 * @param registry the lock registry
	 * @param events where releases, granted or refused, are kept
	 * @param releaseEnabled whether releases are allowed
	 */
	public RedlockEndpointWebExtension(RedlockRegistry registry, RedlockEvents events, boolean releaseEnabled) {
		this.registry = registry;
		this.events = events;
		this.releaseEnabled = releaseEnabled;
	}

	/**
	 * Releases the leases this instance holds on a key, through their owner: each is
	 * declared lost, then deleted on every node.
	 * @param key the lock's key, as the application gives it (without the key prefix);
	 * keys with {@code /} are given whole
	 * @param securityContext who asks
	 * @return 200 with what was released, 403 while releases are off, 404 if this
	 * instance holds no lease on the key
	 */
	@DeleteOperation
	public WebEndpointResponse<ReleaseDescriptor> release(@Selector(match = Selector.Match.ALL_REMAINING) String[] key,
			SecurityContext securityContext) {
		String joined = String.join("/", key);
		String printable = LockKeys.printable(joined);
		String who = who(securityContext);
		if (!this.releaseEnabled) {
			String refused = "Releasing locks through the redlock endpoint is off; set "
					+ "redlock.endpoint.release.enabled=true to allow it";
			logger.warn("Refused to release lock '" + printable + "' for " + who + ": " + refused);
			this.events.record(RedlockEvents.LockEvent.Kind.RELEASE_REFUSED, joined, null, "asked by " + who);
			return new WebEndpointResponse<>(new ReleaseDescriptor(joined, 0, refused), 403);
		}
		int released;
		try {
			released = this.registry.revoke(joined,
					"an operator (" + who + ") released it through the redlock endpoint of its instance");
		}
		catch (IllegalArgumentException ex) {
			throw RedlockEndpoint.invalidKey(ex);
		}
		if (released == 0) {
			return new WebEndpointResponse<>(
					new ReleaseDescriptor(joined, 0,
							"This instance holds no lease on '" + printable
									+ "'; another may: GET /actuator/redlock/{key} shows who holds it where"),
					WebEndpointResponse.STATUS_NOT_FOUND);
		}
		String done = "Released " + released + " lease(s) this instance held on '" + printable
				+ "': the work under them was told that it lost the lock, and keeps running without it until it next"
				+ " checks";
		logger.warn("Lock '" + printable + "' released by " + who + " through the redlock endpoint: " + done);
		this.events.record(RedlockEvents.LockEvent.Kind.RELEASE_FORCED, joined, null,
				released + " lease(s), by " + who);
		return new WebEndpointResponse<>(new ReleaseDescriptor(joined, released, done), WebEndpointResponse.STATUS_OK);
	}

	private static String who(SecurityContext securityContext) {
		Principal principal = securityContext.getPrincipal();
		return (principal != null) ? "principal '" + principal.getName() + "'" : "an unauthenticated caller";
	}

	/**
	 * What a release did.
	 *
	 * @param key the lock's key
	 * @param released how many leases of this instance were released
	 * @param message what happened, or why not
	 */
	public record ReleaseDescriptor(String key, int released, String message) implements OperationResponseBody {

	}

}
