package io.github.delayqueue.sample;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;

import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Refuses a request body of the shop's routes over {@link #MAX_BYTES} with a 413, unread when
 * its length is declared, else as soon as it goes over.
 */
@ControllerAdvice(assignableTypes = ShopController.class)
class BodySizeLimit extends RequestBodyAdviceAdapter {

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
