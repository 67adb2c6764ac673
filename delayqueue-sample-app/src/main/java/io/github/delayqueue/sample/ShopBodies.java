package io.github.delayqueue.sample;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;

import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.type.LogicalType;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * The shop's request bodies: over {@link #MAX_BYTES} a 413, unread when its length is declared,
 * else as soon as it goes over; then read strictly ({@link #STRICT}). Only the shop's routes:
 * the application's mapper, which Actuator and the payload converter use, stays as it is.
 */
@ControllerAdvice(assignableTypes = ShopController.class)
class ShopBodies extends RequestBodyAdviceAdapter {

	/**
	 * An unknown field, a field given twice, content after the value, and a value of another
	 * type ({@code "12.50"} for a number, {@code 7} for a string) are refused rather than
	 * ignored or converted.
	 */
	private static final JsonMapper STRICT = JsonMapper.builder()
		.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
		.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
		.withCoercionConfig(LogicalType.Textual, (config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
			.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail))
		.build();

	/** The largest body the sample's routes read. */
	static final int MAX_BYTES = 16 * 1024;

	@Override
	public boolean supports(MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) {
		return true;
	}

	@Override
	public HttpInputMessage beforeBodyRead(HttpInputMessage message, MethodParameter parameter, Type targetType,
			Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
		byte[] body = (message.getHeaders().getContentLength() > MAX_BYTES) ? null
				: message.getBody().readNBytes(MAX_BYTES + 1);
		if (body == null || body.length > MAX_BYTES) {
			throw new ErrorResponseException(HttpStatus.CONTENT_TOO_LARGE, ProblemDetail
				.forStatusAndDetail(HttpStatus.CONTENT_TOO_LARGE, "the request body must be at most " + MAX_BYTES + " bytes"),
					null);
		}
		try {
			STRICT.readValue(body, STRICT.constructType(targetType));
		}
		catch (JacksonException ex) {
			throw new HttpMessageNotReadableException(ex.getOriginalMessage(), ex, message);
		}
		return new HttpInputMessage() {

			@Override
			public InputStream getBody() {
				return new ByteArrayInputStream(body);
			}

			@Override
			public HttpHeaders getHeaders() {
				return message.getHeaders();
			}

		};
	}

}
