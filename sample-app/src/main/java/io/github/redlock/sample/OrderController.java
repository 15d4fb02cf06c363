package io.github.redlock.sample;

import java.util.List;

import io.github.redlock.sample.PaymentService.Payment;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The order endpoints: pay an order, see its charges.
 */
@RestController
public class OrderController {

	private final PaymentService payments;

	private final Ledger ledger;

	public OrderController(PaymentService payments, Ledger ledger) {
		this.payments = payments;
		this.ledger = ledger;
	}

	@PostMapping("/orders/{orderId}/pay")
	public Payment pay(@PathVariable long orderId) {
		return this.payments.pay(orderId);
	}

	@GetMapping("/orders/{orderId}/charges")
	public List<String> charges(@PathVariable long orderId) {
		return this.ledger.charges(orderId);
	}

}
