package io.github.delayqueue.sample;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.util.List;

import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;

/**
 * A request's JSON object, read with a size limit, and its fields read one by one: a body
 * that is too large, not a JSON object, or holds a field the route does not take is refused,
 * and so is every field that is missing, of the wrong type or out of range, naming it (see
 * {@link ShopController#refused}).
 */
final class JsonBody {

	/** The largest body the sample's routes read. */
	static final int MAX_BYTES = 16 * 1024;

	private final JsonNode body;

	private JsonBody(JsonNode body) {
		this.body = body;
	}

	static JsonBody read(HttpServletRequest request, JsonMapper mapper, List<String> fields) throws IOException {
		if (request.getContentLengthLong() > MAX_BYTES) {
			throw tooLarge();
		}
		byte[] bytes;
		try (InputStream in = request.getInputStream()) {
			bytes = in.readNBytes(MAX_BYTES + 1);
		}
		if (bytes.length > MAX_BYTES) {
			throw tooLarge();
		}
		JsonNode body;
		try {
			body = mapper.readTree(bytes);
		}
		catch (JacksonException ex) {
			throw Refusal.badRequest(null, "the request body is not valid JSON: " + ex.getOriginalMessage());
		}
		if (body == null || !body.isObject()) {
			throw Refusal.badRequest(null, "the request body must be a JSON object with the fields " + fields);
		}
		for (String name : body.propertyNames()) {
			if (!fields.contains(name)) {
				throw Refusal.badRequest(name, "unknown field '" + name + "'; the fields are " + fields);
			}
		}
		return new JsonBody(body);
	}

	private static Refusal tooLarge() {
		return new Refusal(HttpStatus.CONTENT_TOO_LARGE, null, "the request body must be at most " + MAX_BYTES + " bytes");
	}

	/**
	 * A text of 1 to {@code maxLength} characters, not blank.
	 */
	String text(String field, int maxLength) {
		JsonNode node = this.body.get(field);
		if (node == null || node.isNull()) {
			throw Refusal.badRequest(field, field + " must be given");
		}
		if (!node.isString()) {
			throw Refusal.badRequest(field, field + " must be a string");
		}
		String text = node.stringValue();
		if (text.isBlank() || text.length() > maxLength) {
			throw Refusal.badRequest(field,
					field + " must be 1 to " + maxLength + " characters, not blank, was " + text.length());
		}
		return text;
	}

	/**
	 * An amount of money: a JSON number above 0, at most {@code max}, with at most two
	 * decimals.
	 */
	BigDecimal amount(String field, BigDecimal max) {
		JsonNode node = this.body.get(field);
		if (node == null || node.isNull()) {
			throw Refusal.badRequest(field, field + " must be given");
		}
		if (!node.isNumber()) {
			throw Refusal.badRequest(field, field + " must be a number such as 12.50, was " + node);
		}
		String rule = field + " must be greater than 0 and at most " + max.toPlainString()
				+ ", with at most two decimals, was " + node;
		if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
			throw Refusal.badRequest(field, rule); // 1e400 reads as Infinity
		}
		BigDecimal amount = node.decimalValue();
		if (amount.signum() <= 0 || amount.compareTo(max) > 0 || amount.stripTrailingZeros().scale() > 2) {
			throw Refusal.badRequest(field, rule);
		}
		return amount;
	}

	boolean flag(String field) {
		JsonNode node = this.body.get(field);
		if (node == null || !node.isBoolean()) {
			throw Refusal.badRequest(field, field + " must be true or false");
		}
		return node.booleanValue();
	}

	/**
	 * A request the sample's API refuses: the status, and the field at fault when there is one.
	 */
	static final class Refusal extends RuntimeException {

		private final HttpStatus status;

		private final String field;

		Refusal(HttpStatus status, String field, String message) {
			super(message);
			this.status = status;
			this.field = field;
		}

		static Refusal badRequest(String field, String message) {
			return new Refusal(HttpStatus.BAD_REQUEST, field, message);
		}

		HttpStatus status() {
			return this.status;
		}

		String field() {
			return this.field;
		}

	}

}
