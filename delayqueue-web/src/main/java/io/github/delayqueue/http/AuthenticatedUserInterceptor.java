package io.github.delayqueue.http;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.servlet.HandlerInterceptor;

/**
 * Lets a request to a handler method of {@link DelayQueueHttpApi} through only with an
 * authenticated user ({@link HttpServletRequest#getUserPrincipal()}, which Spring Security
 * leaves {@code null} for its anonymous user); else answers 401 with
 * {@code application/problem+json} and the API's method is not called. Other handlers are let
 * through untouched. Checked on the handler, as {@link BearerTokenInterceptor} checks tokens,
 * so it holds whatever the application's security permits. Thread safe.
 */
public class AuthenticatedUserInterceptor implements HandlerInterceptor {

	@Override
	public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) {
		if (!BearerTokenInterceptor.isApi(handler) || request.getUserPrincipal() != null) {
			return true;
		}
		throw BearerTokenInterceptor.unauthorized(null, "the API serves authenticated users only"
				+ " (delayqueue.http.secured-by-application=true): the application's security must sign the user in");
	}

}
