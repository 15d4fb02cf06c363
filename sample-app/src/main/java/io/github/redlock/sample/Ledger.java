package io.github.redlock.sample;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.springframework.stereotype.Component;

/**
 * The toy payment ledger: every charge made to an order. Two charges for one order is the
 * bug the lock prevents.
 */
@Component
public class Ledger {

	private final Map<Long, List<String>> charges = new ConcurrentHashMap<>();

	public boolean isPaid(long orderId) {
		return !this.charges.getOrDefault(orderId, List.of()).isEmpty();
	}

	public void charge(long orderId, String by) {
		this.charges.computeIfAbsent(orderId, (id) -> new CopyOnWriteArrayList<>()).add(by);
	}

	public List<String> charges(long orderId) {
		return List.copyOf(this.charges.getOrDefault(orderId, List.of()));
	}

	public void forget(long orderId) {
		this.charges.remove(orderId);
	}

}
