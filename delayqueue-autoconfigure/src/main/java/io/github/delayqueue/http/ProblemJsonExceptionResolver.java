package io.github.delayqueue.http;

import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.jspecify.annotations.Nullable;

import org.springframework.web.ErrorResponse;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.util.UrlPathHelper;

/**
 * Answers the {@link ErrorResponse}s of requests under some paths (the HTTP job API's, the Actuator
 * endpoint's) that no {@code @ExceptionHandler} took: Spring MVC's before a handler is found (404, 405, 415).
 */
public class ProblemJsonExceptionResolver implements HandlerExceptionResolver {

	private final Supplier<List<String>> paths;

	/** A resolver for the requests under the paths it is given (each with everything under it). */
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
		try {
			HttpApiException.write(refusal, request, response);
		}
		catch (IOException failure) {
			return null;
		}
		return new ModelAndView();
	}

}
