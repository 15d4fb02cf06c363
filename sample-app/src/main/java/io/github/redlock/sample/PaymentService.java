package io.github.redlock.sample;

import io.github.redlock.aop.CurrentLease;
import io.github.redlock.annotation.DistributedLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.stereotype.Service;

/**
 * Pays orders: checks the ledger, calls a (slow) payment provider, records the charge.
 * Without the lock, concurrent payments for one order all see it unpaid and all charge.
 */
@Service
public class PaymentService {

	private static final Log logger = LogFactory.getLog(PaymentService.class);

	private final Ledger ledger;

	public PaymentService(Ledger ledger) {
		this.ledger = ledger;
	}

	/**
	 * Pays an order at most once across every instance of the service.
	 */
	@DistributedLock(key = "'order:' + #orderId", ttl = "10s", waitTime = "${sample.payment-wait:3s}")
	public Payment pay(long orderId) {
		long token = CurrentLease.get().fencingToken();
		return charge(orderId, token);
	}

	/**
	 * The same without a lock, for contrast.
	 */
	public Payment payWithoutLock(long orderId) {
		return charge(orderId, 0);
	}

	private Payment charge(long orderId, long token) {
		String who = Thread.currentThread().getName();
		if (this.ledger.isPaid(orderId)) {
			logger.info("Order " + orderId + " is already paid: " + who + " charges nothing");
			return new Payment(orderId, "ALREADY_PAID", token);
		}
		sleep(200); // the payment provider takes its time
		this.ledger.charge(orderId, who);
		logger.info("Charged order " + orderId + " by " + who
				+ ((token > 0) ? " under fencing token " + token : " WITHOUT a lock") + "; charges so far: "
				+ this.ledger.charges(orderId).size());
		return new Payment(orderId, "CHARGED", token);
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while paying", ex);
		}
	}

	/**
	 * The outcome of one payment request.
	 *
	 * @param orderId the order
	 * @param outcome {@code CHARGED} or {@code ALREADY_PAID}
	 * @param fencingToken the lock's fencing token, 0 without a lock
	 */
	public record Payment(long orderId, String outcome, long fencingToken) {
	}

}
