package io.github.delayqueue.http;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Map;
import java.util.function.Function;
import java.util.function.LongFunction;

import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.recurring.MisfirePolicy;
import io.github.delayqueue.recurring.OverlapPolicy;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * The bodies of the HTTP job API's requests, read by {@link JobRequestConverter}: a field
 * that is absent or {@code null} is {@code null}. Durations are ISO-8601 ({@code PT30S}) or
 * whole milliseconds, instants ISO-8601 or milliseconds since the epoch, a token a whole
 * number or its digits, and a payload the exact text the request holds.
 */
final class JobRequests {

	static final String DURATION_RULE = " must be an ISO-8601 duration such as PT30S, or whole milliseconds";

	static final String INSTANT_RULE = " must be an ISO-8601 instant such as 2030-01-01T00:00:00Z, or milliseconds since the epoch";

	/** The attribute of a read that holds the request's bytes, which payloads are cut from. */
	static final String SOURCE = JobRequests.class.getName() + ".source";

	private JobRequests() {
	}

	record Add(@Nullable String topic, @Nullable String id, @Nullable Duration delay, @Nullable Instant dueAt,
			@Nullable Duration ttr, @Nullable Integer maxAttempts, @Nullable Payload body,
			@Nullable OnDuplicate onDuplicate, @Nullable Map<String, String> headers, @Nullable Integer priority) {

	}

	record Finish(@Nullable Long token) {

	}

	record Fail(@Nullable Long token, @Nullable Duration retryIn, @Nullable Boolean dead, @Nullable String error) {

	}

	record Touch(@Nullable Long token, @Nullable Duration ttr) {

	}

	record PutRecurring(@Nullable String topic, @Nullable String cron, @Nullable String zone, @Nullable Duration every,
			@Nullable Duration fixedDelay, @Nullable Payload body, @Nullable Map<String, String> headers,
			@Nullable Duration ttr, @Nullable Integer maxAttempts, @Nullable MisfirePolicy misfire,
			@Nullable Duration misfireThreshold, @Nullable Integer maxCatchUp, @Nullable OverlapPolicy overlap) {

	}

	/**
	 * A job's payload: the text of a JSON string (as a Java {@code String} payload is
	 * stored), else the value's JSON text byte for byte as the request holds it.
	 */
	record Payload(byte[] bytes) {

	}

	/**
	 * A duration given as text: whole milliseconds (digits, with a leading {@code -} for a
	 * negative one) or ISO-8601.
	 * @return the duration, or {@code null} when the text is neither
	 */
	static @Nullable Duration duration(String text) {
		if (text.matches("-?[0-9]{1,18}")) {
			return Duration.ofMillis(Long.parseLong(text));
		}
		try {
			return Duration.parse(text);
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	/**
	 * The deserializers of the request's values, for the mapper that reads them.
	 */
	static SimpleModule module() {
		return new SimpleModule("delayqueue-http-requests").addDeserializer(Payload.class, new PayloadDeserializer())
			.addDeserializer(Duration.class, new MillisOrText<>(Duration.class, Duration::ofMillis, JobRequests::duration))
			.addDeserializer(Instant.class, new MillisOrText<>(Instant.class, Instant::ofEpochMilli, JobRequests::instant));
	}

	private static @Nullable Instant instant(String text) {
		try {
			return Instant.parse(text);
		}
		catch (DateTimeParseException ex) {
			return null;
		}
	}

	private static final class PayloadDeserializer extends ValueDeserializer<Payload> {

		@Override
		public Payload deserialize(JsonParser parser, DeserializationContext context) {
			if (parser.currentToken() == JsonToken.VALUE_STRING) {
				return new Payload(parser.getString().getBytes(StandardCharsets.UTF_8));
			}
			long start = parser.currentTokenLocation().getByteOffset();
			parser.skipChildren();
			long end = parser.currentLocation().getByteOffset();
			if (start < 0 || end < start) {
				// read as characters: a body in UTF-16 or UTF-32
				throw HttpApiException.badRequest(null, "the request body must be UTF-8 JSON");
			}
			return new Payload(Arrays.copyOfRange((byte[]) context.getAttribute(SOURCE), (int) start, (int) end));
		}

	}

	/**
	 * A time value given as whole milliseconds or as ISO-8601 text.
	 */
	private static final class MillisOrText<T> extends ValueDeserializer<T> {

		private final Class<T> type;

		private final LongFunction<T> fromMillis;

		private final Function<String, @Nullable T> fromText;

		MillisOrText(Class<T> type, LongFunction<T> fromMillis, Function<String, @Nullable T> fromText) {
			this.type = type;
			this.fromMillis = fromMillis;
			this.fromText = fromText;
		}

		@Override
		public T deserialize(JsonParser parser, DeserializationContext context) {
			if (parser.currentToken() == JsonToken.VALUE_NUMBER_INT) {
				return this.fromMillis.apply(parser.getLongValue());
			}
			if (parser.currentToken() != JsonToken.VALUE_STRING) {
				return this.type.cast(context.handleUnexpectedToken(this.type, parser));
			}
			T value = this.fromText.apply(parser.getString());
			return (value != null) ? value
					: this.type.cast(context.handleWeirdStringValue(this.type, parser.getString(), "not ISO-8601"));
		}

	}

}
