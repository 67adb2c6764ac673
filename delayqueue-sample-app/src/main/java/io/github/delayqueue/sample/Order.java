package io.github.delayqueue.sample;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order of the sample shop.
 *
 * @param id the order id
 * @param item what was ordered
 * @param amount what it costs
 * @param status {@code CREATED}, {@code PAID} or {@code CLOSED}
 * @param placedAt when it was placed
 * @param closesAt when it is closed unless paid
 * @param settledAt when it was paid or closed, or {@code null}
 */
record Order(String id, String item, BigDecimal amount, Status status, Instant placedAt, Instant closesAt,
		Instant settledAt) {

	enum Status {

		CREATED, PAID, CLOSED

	}

	Order settle(Status status, Instant at) {
		return new Order(this.id, this.item, this.amount, status, this.placedAt, this.closesAt, at);
	}

}
