package io.github.delayqueue.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.ErrorResponse;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.web.util.ServletRequestPathUtils;
import org.springframework.web.util.UrlPathHelper;

/**
 * Answers Spring MVC's own refusals of requests under some paths (the HTTP job API's, the
 * {@code delayqueue} Actuator endpoint's) with {@code application/problem+json}, as the
 * API's and the endpoint's own refusals are: a method a path does not serve (405, with
 * {@code Allow}), a {@code Content-Type} it does not read (415), a body that is not the JSON
 * it expects (400, naming the field when one is at fault), a path with nothing behind it
 * (404), and the other {@link ErrorResponse} exceptions. Requests under other paths are left
 * to the application's own handling, as are exceptions of other kinds.
 *
 * <p>
 * Add it to Spring MVC's resolvers after the one for {@code @ExceptionHandler} methods (so
 * that the application's own {@code @ControllerAdvice} still comes first), such as in
 * {@code WebMvcConfigurer#extendHandlerExceptionResolvers}. Thread-safe.
 */
public class ProblemJsonExceptionResolver implements HandlerExceptionResolver {

	private final Supplier<List<String>> paths;

	/**
	 * Creates a resolver.
	 * @param paths the paths whose requests it answers (each one and everything under it),
	 * relative to the {@code DispatcherServlet}'s mapping, such as {@code /delayqueue};
	 * asked for on each refusal, so that they may be known late
	 */
	public ProblemJsonExceptionResolver(Supplier<List<String>> paths) {
		this.paths = paths;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		if (!(ex instanceof ErrorResponse || ex instanceof HttpMessageNotReadableException) || !isServed(request)) {
			return null;
		}
		try {
			answer(request, response, ex);
		}
		catch (IOException failure) {
			return null;
		}
		return new ModelAndView();
	}

	private boolean isServed(HttpServletRequest request) {
		String path = path(request);
		for (String prefix : this.paths.get()) {
			if (prefix != null && (path.equals(prefix) || path.startsWith(prefix + "/"))) {
				return true;
			}
		}
		return false;
	}

	private static String path(HttpServletRequest request) {
		if (ServletRequestPathUtils.hasCachedPath(request)) {
			return ServletRequestPathUtils.getCachedPathValue(request);
		}
		return UrlPathHelper.defaultInstance.getLookupPathForRequest(request);
	}

	private static void answer(HttpServletRequest request, HttpServletResponse response, Exception ex)
			throws IOException {
		HttpStatusCode status;
		String detail;
		String field = null;
		HttpHeaders headers = new HttpHeaders();
		String route = request.getMethod() + " " + path(request);
		if (ex instanceof HttpMessageNotReadableException unreadable) {
			status = HttpStatus.BAD_REQUEST;
			field = field(unreadable);
			detail = (field != null) ? field + " must be one value: a string, a number or true or false"
					: "the request body must be a JSON object of the operation's fields";
		}
		else {
			ErrorResponse refusal = (ErrorResponse) ex;
			status = refusal.getStatusCode();
			headers.putAll(refusal.getHeaders());
			if (ex instanceof HttpRequestMethodNotSupportedException notSupported) {
				Set<HttpMethod> supported = notSupported.getSupportedHttpMethods();
				detail = request.getMethod() + " is not allowed on " + path(request)
						+ ((supported != null && !supported.isEmpty()) ? "; it takes "
								+ supported.stream().map(HttpMethod::name).sorted().collect(Collectors.joining(", "))
								: "");
			}
			else if (ex instanceof NoResourceFoundException || ex instanceof NoHandlerFoundException) {
				detail = "nothing is served at " + route;
			}
			else {
				String text = refusal.getBody().getDetail();
				detail = (text != null) ? text : route + ": " + ex.getMessage();
			}
		}
		HttpStatus known = HttpStatus.resolve(status.value());
		String title = (known != null) ? known.getReasonPhrase() : String.valueOf(status.value());
		response.setStatus(status.value());
		headers.forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		// JSON is UTF-8 without a charset parameter, as the API's own answers are
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.getOutputStream()
			.write(JobViews.problem(status.value(), title, detail, field).toString().getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * The top-level field of a body that Jackson could not read into the operation's fields.
	 */
	private static @Nullable String field(HttpMessageNotReadableException ex) {
		for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause()) {
			if (cause instanceof JacksonException jackson && !jackson.getPath().isEmpty()) {
				return jackson.getPath().get(0).getPropertyName();
			}
		}
		return null;
	}

}
