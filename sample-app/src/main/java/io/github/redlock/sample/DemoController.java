package io.github.redlock.sample;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.redlock.LockAcquisitionException;
import io.github.redlock.sample.PaymentService.Payment;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Demonstrations a person can run with curl and follow in the log.
 */
@RestController
public class DemoController {

	private static final Log logger = LogFactory.getLog(DemoController.class);

	private final PaymentService payments;

	private final Ledger ledger;

	private final ReportService reports;

	private final ReindexJob reindex;

	public DemoController(PaymentService payments, Ledger ledger, ReportService reports, ReindexJob reindex) {
		this.payments = payments;
		this.ledger = ledger;
		this.reports = reports;
		this.reindex = reindex;
	}

	/**
	 * Fires {@code requests} concurrent payments for one order, with or without the lock,
	 * and says what happened.
	 */
	@PostMapping("/demo/orders/{orderId}/race")
	public RaceReport race(@PathVariable long orderId, @RequestParam(defaultValue = "10") int requests,
			@RequestParam(defaultValue = "true") boolean locked) throws Exception {
		int count = Math.max(1, Math.min(requests, 50));
		this.ledger.forget(orderId);
		logger.info("Race: " + count + " concurrent payments for order " + orderId
				+ (locked ? " under @DistributedLock" : " WITHOUT a lock"));
		ExecutorService pool = Executors.newFixedThreadPool(count);
		try {
			CountDownLatch start = new CountDownLatch(1);
			List<Future<Payment>> results = new ArrayList<>();
			for (int i = 0; i < count; i++) {
				results.add(pool.submit(() -> {
					start.await();
					return locked ? this.payments.pay(orderId) : this.payments.payWithoutLock(orderId);
				}));
			}
			start.countDown();
			int charged = 0;
			int alreadyPaid = 0;
			int refused = 0;
			List<Long> tokens = new ArrayList<>();
			for (Future<Payment> result : results) {
				try {
					Payment payment = result.get(1, TimeUnit.MINUTES);
					if (payment.outcome().equals("CHARGED")) {
						charged++;
					}
					else {
						alreadyPaid++;
					}
					if (payment.fencingToken() > 0) {
						tokens.add(payment.fencingToken());
					}
				}
				catch (java.util.concurrent.ExecutionException ex) {
					if (!(ex.getCause() instanceof LockAcquisitionException)) {
						throw ex;
					}
					refused++;
				}
			}
			tokens.sort(null);
			int charges = this.ledger.charges(orderId).size();
			logger.info("Race result for order " + orderId + ": " + charges + " charge(s), " + alreadyPaid
					+ " found it paid, " + refused + " refused (lock busy too long)");
			return new RaceReport(orderId, locked, count, charges, charged, alreadyPaid, refused, tokens);
		}
		finally {
			pool.shutdownNow();
		}
	}

	@PostMapping("/demo/reports/{name}/stale-writer")
	public List<String> staleWriter(@PathVariable String name) throws Exception {
		return this.reports.staleWriter(name);
	}

	@PostMapping("/jobs/reindex")
	public ReindexJob.Result reindex(@RequestParam(defaultValue = "6") long seconds) throws InterruptedException {
		return this.reindex.run(Duration.ofSeconds(Math.max(1, Math.min(seconds, 60))));
	}

	/**
	 * What a race did.
	 *
	 * @param orderId the order
	 * @param locked whether the payments ran under the lock
	 * @param requests how many payments were fired
	 * @param charges how many charges the ledger recorded (should be 1)
	 * @param charged how many requests answered CHARGED
	 * @param alreadyPaid how many found the order paid
	 * @param refused how many could not get the lock within the wait time
	 * @param fencingTokens the tokens of the requests that held the lock, in order
	 */
	public record RaceReport(long orderId, boolean locked, int requests, int charges, int charged, int alreadyPaid,
			int refused, List<Long> fencingTokens) {
	}

}
