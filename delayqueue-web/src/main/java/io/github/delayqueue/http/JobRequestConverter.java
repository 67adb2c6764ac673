package io.github.delayqueue.http;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.exc.InvalidFormatException;
import tools.jackson.databind.exc.MismatchedInputException;
import tools.jackson.databind.exc.UnrecognizedPropertyException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpOutputMessage;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.converter.AbstractHttpMessageConverter;
import org.springframework.util.ClassUtils;

/**
 * Reads the bodies of the HTTP job API's requests ({@code application/json}) into its
 * request records, and nothing else: at most {@code delayqueue.http.max-body-size} bytes
 * (else a 413), strictly (an unknown field, a field given twice, content after the object,
 * a number where a string is expected or the reverse are a 400 naming the field and the
 * rule), a job's payload as the exact UTF-8 text the request holds. Thread-safe.
 */
public final class JobRequestConverter extends AbstractHttpMessageConverter<Record> {

	private static final Pattern DUPLICATE = Pattern.compile("Duplicate Object property \"(.*)\"");

	private static final ObjectReader reader = JsonMapper.builder()
		.addModule(JobRequests.module())
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS,
				DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS, DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
		.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
		// a value of another type is refused, not converted: "3" is not 3, 7 is not "7"
		.withCoercionConfigDefaults((config) -> config.setAcceptBlankAsEmpty(false)
			.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.String, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.EmptyString, CoercionAction.Fail))
		// but a token may come as its digits, as a client that holds it as text sends it
		.withCoercionConfig(Long.class, (config) -> config.setCoercion(CoercionInputShape.String, CoercionAction.TryConvert))
		.build()
		.reader();

	private final long maxBodyBytes;

	/**
	 * Creates a converter.
	 * @param maxBodyBytes the largest body it reads, in bytes
	 */
	public JobRequestConverter(long maxBodyBytes) {
		super(MediaType.APPLICATION_JSON);
		this.maxBodyBytes = maxBodyBytes;
	}

	@Override
	protected boolean supports(Class<?> type) {
		return type.getEnclosingClass() == JobRequests.class;
	}

	@Override
	public boolean canWrite(Class<?> type, @Nullable MediaType mediaType) {
		return false;
	}

	@Override
	protected Record readInternal(Class<? extends Record> type, HttpInputMessage message) throws IOException {
		if (message.getHeaders().getContentLength() > this.maxBodyBytes) {
			throw tooLarge();
		}
		byte[] bytes;
		try (InputStream in = message.getBody()) {
			bytes = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, this.maxBodyBytes + 1));
		}
		if (bytes.length > this.maxBodyBytes) {
			throw tooLarge();
		}
		try {
			return reader.forType(type).withAttribute(JobRequests.SOURCE, bytes).readValue(bytes);
		}
		catch (JacksonException ex) {
			for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
				if (cause instanceof HttpApiException refusal) {
					throw refusal;
				}
			}
			throw refusal(ex);
		}
	}

	@Override
	protected void writeInternal(Record request, HttpOutputMessage message) {
		throw new UnsupportedOperationException("reads requests only");
	}

	private HttpApiException tooLarge() {
		return new HttpApiException(HttpStatus.CONTENT_TOO_LARGE, null,
				"the request body must be at most " + this.maxBodyBytes + " bytes (delayqueue.http.max-body-size)");
	}

	/**
	 * The refusal of a body that Jackson could not read: naming the top-level field at
	 * fault, and the rule of the value expected where there is one.
	 */
	private static HttpApiException refusal(JacksonException ex) {
		if (ex instanceof UnrecognizedPropertyException unknown) {
			return HttpApiException.badRequest(unknown.getPropertyName(), "unknown field '" + unknown.getPropertyName()
					+ "'; the fields are " + unknown.getKnownPropertyIds());
		}
		Matcher duplicate = DUPLICATE.matcher(ex.getOriginalMessage());
		if (ex.getPath().isEmpty() && duplicate.find()) {
			return HttpApiException.badRequest(duplicate.group(1), duplicate.group(1) + " must be given once");
		}
		if (ex.getPath().isEmpty()) {
			return HttpApiException.badRequest(null, (ex instanceof MismatchedInputException)
					? "the request body must be a JSON object of the operation's fields"
					: "the request body is not valid JSON: " + ex.getOriginalMessage());
		}
		String field = ex.getPath().get(0).getPropertyName();
		String where = ex.getPath()
			.stream()
			.map((step) -> (step.getPropertyName() != null) ? step.getPropertyName() : "[" + step.getIndex() + "]")
			.collect(Collectors.joining("."));
		Class<?> type = (ex instanceof MismatchedInputException mismatch) ? mismatch.getTargetType()
				: (ex instanceof InputCoercionException coercion) ? coercion.getTargetType() : null;
		String rule = (type != null) ? rule(type) : ": " + ex.getOriginalMessage();
		String was = (ex instanceof InvalidFormatException invalid) ? ", was '" + invalid.getValue() + "'" : "";
		return HttpApiException.badRequest(field, where + rule + was);
	}

	private static String rule(Class<?> type) {
		Class<?> boxed = ClassUtils.resolvePrimitiveIfNecessary(type);
		if (boxed == String.class) {
			return " must be a string";
		}
		if (boxed == Integer.class || boxed == Long.class) {
			return " must be a whole number";
		}
		if (boxed == Boolean.class) {
			return " must be true or false";
		}
		if (boxed == Duration.class) {
			return JobRequests.DURATION_RULE;
		}
		if (boxed == Instant.class) {
			return JobRequests.INSTANT_RULE;
		}
		if (boxed.isEnum()) {
			return " must be one of " + Arrays.toString(boxed.getEnumConstants());
		}
		if (Map.class.isAssignableFrom(boxed)) {
			return " must be an object of strings";
		}
		return " must be a JSON value";
	}

}
