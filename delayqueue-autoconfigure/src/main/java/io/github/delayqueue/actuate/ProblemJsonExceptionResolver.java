package io.github.delayqueue.actuate;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.ErrorResponse;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.util.UrlPathHelper;

/**
 * Answers the {@link ErrorResponse}s of requests under some paths (the HTTP job API's, the Actuator
 * endpoint's) that no {@code @ExceptionHandler} took: Spring MVC's before a handler is found (404, 405, 415),
 * and a body that cannot be read (400, naming the field at fault when one is).
 */
public class ProblemJsonExceptionResolver implements HandlerExceptionResolver {

	private static final JacksonJsonHttpMessageConverter json = new JacksonJsonHttpMessageConverter();

	private final Supplier<List<String>> paths;

	/** A resolver for the requests under the paths it is given (each with everything under it). */
	public ProblemJsonExceptionResolver(Supplier<List<String>> paths) {
		this.paths = paths;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		String path = UrlPathHelper.defaultInstance.getLookupPathForRequest(request) + "/";
		Exception answered = (ex instanceof HttpMessageNotReadableException unreadable) ? unreadable(unreadable) : ex;
		if (!(answered instanceof ErrorResponse refusal)
				|| this.paths.get().stream().noneMatch((p) -> path.startsWith(p + "/"))) {
			return null;
		}
		try {
			write(refusal, request, response);
		}
		catch (IOException failure) {
			return null;
		}
		return new ModelAndView();
	}

	/** A 400 for a body that cannot be read, naming the field at fault when one is. */
	private static ErrorResponseException unreadable(HttpMessageNotReadableException ex) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST,
				"the request body must be a JSON object of the operation's fields");
		for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
			if (cause instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
				String field = jackson.getPath().get(0).getPropertyName();
				problem.setDetail(field + " must be one value: a string, a number or true or false");
				problem.setProperty("field", field);
				break;
			}
		}
		return new ErrorResponseException(HttpStatus.BAD_REQUEST, problem, ex);
	}

	/**
	 * Writes a refusal as {@code application/problem+json}, with a {@code type} and an {@code instance}.
	 * @param refusal the refusal
	 * @param request the request refused
	 * @param response the response to write
	 * @throws IOException when the response cannot be written
	 */
	public static void write(ErrorResponse refusal, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		ProblemDetail problem = refusal.getBody();
		problem.setType(Objects.requireNonNullElse(problem.getType(), URI.create("about:blank")));
		problem.setInstance(Objects.requireNonNullElse(problem.getInstance(), URI.create(request.getRequestURI())));
		ServletServerHttpResponse answer = new ServletServerHttpResponse(response);
		answer.setStatusCode(refusal.getStatusCode());
		answer.getHeaders().putAll(refusal.getHeaders());
		json.write(problem, MediaType.APPLICATION_PROBLEM_JSON, answer);
	}

}
