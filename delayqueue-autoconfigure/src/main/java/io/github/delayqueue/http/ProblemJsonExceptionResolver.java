package io.github.delayqueue.http;

import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.http.converter.json.JacksonJsonHttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.ErrorResponse;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.util.UrlPathHelper;

/**
 * Answers the {@link ErrorResponse}s of requests under some paths (the HTTP job API's, the Actuator
 * endpoint's) that no {@code @ExceptionHandler} took: Spring MVC's before a handler is found (404, 405, 415).
 */
public class ProblemJsonExceptionResolver implements HandlerExceptionResolver {

	private static final JacksonJsonHttpMessageConverter json = new JacksonJsonHttpMessageConverter();

	private final Supplier<List<String>> paths;

	/**
	 * Creates a resolver.
	 * @param paths the paths whose requests it answers, each with everything under it
	 */
	public ProblemJsonExceptionResolver(Supplier<List<String>> paths) {
		this.paths = paths;
	}

	@Override
	public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
			@Nullable Object handler, Exception ex) {
		String path = UrlPathHelper.defaultInstance.getLookupPathForRequest(request) + "/";
		if (!(ex instanceof ErrorResponse refusal) || this.paths.get().stream().noneMatch((p) -> path.startsWith(p + "/"))) {
			return null;
		}
		refusal.getBody().setType(Objects.requireNonNullElse(refusal.getBody().getType(), URI.create("about:blank")));
		try {
			ServletServerHttpResponse answer = new ServletServerHttpResponse(response);
			answer.setStatusCode(refusal.getStatusCode());
			answer.getHeaders().putAll(refusal.getHeaders());
			json.write(refusal.getBody(), MediaType.APPLICATION_PROBLEM_JSON, answer);
			return new ModelAndView();
		}
		catch (IOException failure) {
			return null;
		}
	}

}
