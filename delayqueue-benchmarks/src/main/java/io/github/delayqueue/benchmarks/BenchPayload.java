package io.github.delayqueue.benchmarks;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The job payload of every scenario: an order-close request whose JSON form is about 200
 * bytes, or a body of a chosen size ({@link #sized}). {@code due} is the due time the
 * producer computed (epoch milliseconds); the lag of a Redisson or floor design job is
 * measured from it, as those compute their own due time the same way.
 *
 * @param seq the job's number within its scenario run
 * @param due the due time as the producer computed it
 * @param orderId the order
 * @param customerId the customer
 * @param currency the currency
 * @param amountCents the amount
 * @param reason free text that brings the JSON form to about 200 bytes
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record BenchPayload(int seq, long due, String orderId, String customerId, String currency, Long amountCents,
		String reason) {

	private static final String REASON = "close-unpaid-order-after-30-minutes:reminder-sent";

	static BenchPayload of(int seq, long due) {
		return new BenchPayload(seq, due, "ord-2026-" + padded(seq, 10), "cus-" + padded(seq % 1_000_000, 8), "EUR",
				1_000L + (seq % 100_000) * 13L, REASON);
	}

	/**
	 * A payload whose JSON form, {@code {"seq":…,"due":…,"reason":"…"}}, is {@code bytes}
	 * long (or as short as it can be).
	 */
	static BenchPayload sized(int seq, long due, int bytes) {
		int fixed = "{\"seq\":,\"due\":,\"reason\":\"\"}".length() + Integer.toString(seq).length()
				+ Long.toString(due).length();
		return new BenchPayload(seq, due, null, null, null, null, "x".repeat(Math.max(0, bytes - fixed)));
	}

	/**
	 * A number with leading zeros, as {@code %0<width>d} writes it (without the formatter's
	 * cost, which showed in the producer's profile).
	 */
	static String padded(int number, int width) {
		String digits = Integer.toString(number);
		return (digits.length() >= width) ? digits : "0".repeat(width - digits.length()) + digits;
	}

}
