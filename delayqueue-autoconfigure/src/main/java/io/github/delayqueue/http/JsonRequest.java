package io.github.delayqueue.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;

/**
 * A request's JSON object, read with a size limit, and its fields read one by one: every
 * field that is missing, of the wrong type or out of range is a 400 that names it. Unknown
 * fields are refused too, so that a misspelt option is not silently ignored.
 */
final class JsonRequest {

	private static final Pattern DUPLICATE = Pattern.compile("Duplicate Object property \"(.*)\"");

	private final JsonNode body;

	private final byte[] bytes;

	private final JsonMapper mapper;

	private JsonRequest(JsonNode body, byte[] bytes, JsonMapper mapper) {
		this.body = body;
		this.bytes = bytes;
		this.mapper = mapper;
	}

	/**
	 * Reads a request body.
	 * @param in the body
	 * @param declaredLength the {@code Content-Length}, or -1
	 * @param maxBytes the most bytes accepted
	 * @param mapper the mapper that parses it, refusing a field given twice
	 * @param fields the fields the request may have
	 * @return the request
	 */
	static JsonRequest read(InputStream in, long declaredLength, long maxBytes, JsonMapper mapper, Set<String> fields) {
		if (declaredLength > maxBytes) {
			throw tooLarge(maxBytes);
		}
		byte[] bytes;
		try {
			bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBytes + 1));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the request body", ex);
		}
		if (bytes.length > maxBytes) {
			throw tooLarge(maxBytes);
		}
		if (bytes.length == 0) {
			throw HttpApiException.badRequest(null, "the request body must be a JSON object, was empty");
		}
		JsonNode body;
		try {
			body = mapper.readTree(bytes);
		}
		catch (JacksonException ex) {
			Matcher duplicate = DUPLICATE.matcher(ex.getOriginalMessage());
			if (duplicate.find()) {
				String field = duplicate.group(1);
				throw HttpApiException.badRequest(field, field + " must be given once");
			}
			throw HttpApiException.badRequest(null, "the request body is not valid JSON: " + ex.getOriginalMessage());
		}
		if (body == null || !body.isObject()) {
			throw HttpApiException.badRequest(null, "the request body must be a JSON object");
		}
		for (String name : body.propertyNames()) {
			if (!fields.contains(name)) {
				throw HttpApiException.badRequest(name, "unknown field '" + name + "'; the fields are " + fields);
			}
		}
		return new JsonRequest(body, bytes, mapper);
	}

	private static HttpApiException tooLarge(long maxBytes) {
		return new HttpApiException(HttpStatus.CONTENT_TOO_LARGE, null,
				"the request body must be at most " + maxBytes + " bytes (delayqueue.http.max-body-size)");
	}

	boolean has(String field) {
		JsonNode node = this.body.get(field);
		return node != null && !node.isNull();
	}

	JsonNode node(String field) {
		JsonNode node = this.body.get(field);
		if (node == null || node.isNull()) {
			throw HttpApiException.badRequest(field, field + " must be given");
		}
		return node;
	}

	/**
	 * The payload a field stands for: the text of a JSON string (as a Java {@code String}
	 * payload is stored), else the field's JSON text byte for byte as the body holds it.
	 */
	byte[] payload(String field) {
		JsonNode node = node(field);
		if (node.isString()) {
			return node.stringValue().getBytes(StandardCharsets.UTF_8);
		}
		try (JsonParser parser = this.mapper.createParser(this.bytes)) {
			parser.nextToken();
			while (parser.nextToken() == JsonToken.PROPERTY_NAME) {
				boolean wanted = parser.currentName().equals(field);
				parser.nextToken();
				long start = parser.currentTokenLocation().getByteOffset();
				parser.skipChildren();
				if (wanted) {
					long end = parser.currentLocation().getByteOffset();
					if (start < 0 || end < start) {
						// read as characters: a body in UTF-16 or UTF-32
						throw HttpApiException.badRequest(null, "the request body must be UTF-8 JSON");
					}
					return Arrays.copyOfRange(this.bytes, (int) start, (int) end);
				}
			}
		}
		throw new IllegalStateException("no field " + field + " in a body that has it");
	}

	String string(String field) {
		JsonNode node = node(field);
		if (!node.isString()) {
			throw HttpApiException.badRequest(field, field + " must be a string");
		}
		return node.stringValue();
	}

	@Nullable String optionalString(String field) {
		return has(field) ? string(field) : null;
	}

	/**
	 * An object of string values, or an empty map when absent.
	 */
	Map<String, String> optionalStrings(String field) {
		if (!has(field)) {
			return Map.of();
		}
		JsonNode node = node(field);
		if (!node.isObject()) {
			throw HttpApiException.badRequest(field, field + " must be an object of strings");
		}
		Map<String, String> values = new LinkedHashMap<>();
		for (Map.Entry<String, JsonNode> entry : node.properties()) {
			if (!entry.getValue().isString()) {
				throw HttpApiException.badRequest(field,
						field + "." + entry.getKey() + " must be a string");
			}
			values.put(entry.getKey(), entry.getValue().asString());
		}
		return values;
	}

	@Nullable Integer optionalInt(String field) {
		if (!has(field)) {
			return null;
		}
		JsonNode node = node(field);
		if (!node.isIntegralNumber() || !node.canConvertToInt()) {
			throw HttpApiException.badRequest(field, field + " must be a whole number");
		}
		return node.intValue();
	}

	boolean flag(String field) {
		if (!has(field)) {
			return false;
		}
		JsonNode node = node(field);
		if (!node.isBoolean()) {
			throw HttpApiException.badRequest(field, field + " must be true or false");
		}
		return node.booleanValue();
	}

	/**
	 * A fencing token: a whole number, or its digits as a string.
	 */
	long token(String field) {
		JsonNode node = node(field);
		if (node.isIntegralNumber() && node.canConvertToLong()) {
			return node.longValue();
		}
		if (node.isString()) {
			return Values.token(field, node.stringValue());
		}
		throw HttpApiException.badRequest(field, field + " must be the token of a reservation, a whole number");
	}

	@Nullable Duration optionalDuration(String field) {
		if (!has(field)) {
			return null;
		}
		JsonNode node = node(field);
		if (node.isIntegralNumber() && node.canConvertToLong()) {
			return Duration.ofMillis(node.longValue());
		}
		if (node.isString()) {
			return Values.duration(field, node.stringValue());
		}
		throw HttpApiException.badRequest(field, field + Values.DURATION_RULE);
	}

	@Nullable Instant optionalInstant(String field) {
		if (!has(field)) {
			return null;
		}
		JsonNode node = node(field);
		if (node.isIntegralNumber() && node.canConvertToLong()) {
			return Instant.ofEpochMilli(node.longValue());
		}
		if (node.isString()) {
			return Values.parse(field, node.stringValue(), Instant::parse, Values.INSTANT_RULE);
		}
		throw HttpApiException.badRequest(field, field + Values.INSTANT_RULE);
	}

	/**
	 * Parsing of the values that come as text, in JSON fields and in query parameters.
	 */
	static final class Values {

		static final String DURATION_RULE = " must be an ISO-8601 duration such as PT30S, or whole milliseconds";

		static final String INSTANT_RULE = " must be an ISO-8601 instant such as 2030-01-01T00:00:00Z, or milliseconds since the epoch";

		private Values() {
		}

		static Duration duration(String field, String text) {
			if (!text.isEmpty() && isDigits(text, (text.charAt(0) == '-') ? 1 : 0)) {
				try {
					return Duration.ofMillis(Long.parseLong(text));
				}
				catch (NumberFormatException ex) {
					throw HttpApiException.badRequest(field, field + DURATION_RULE);
				}
			}
			return parse(field, text, Duration::parse, DURATION_RULE);
		}

		static long token(String field, String text) {
			try {
				if (isDigits(text, 0)) {
					return Long.parseLong(text);
				}
			}
			catch (NumberFormatException ex) {
				// too large: refused below
			}
			throw HttpApiException.badRequest(field, field + " must be the token of a reservation, a whole number");
		}

		static <T> T parse(String field, String text, Function<String, T> parser, String rule) {
			try {
				return parser.apply(text);
			}
			catch (DateTimeParseException ex) {
				throw HttpApiException.badRequest(field, field + rule + ", was '" + text + "'");
			}
		}

		private static boolean isDigits(String text, int from) {
			if (text.length() <= from) {
				return false;
			}
			for (int i = from; i < text.length(); i++) {
				if (text.charAt(i) < '0' || text.charAt(i) > '9') {
					return false;
				}
			}
			return true;
		}

	}

}
