package io.github.delayqueue.autoconfigure;

import java.util.List;
import java.util.regex.Pattern;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.http.BearerTokenInterceptor;
import io.github.delayqueue.http.DelayQueueHttpApi;
import io.github.delayqueue.http.ReserveWaiters;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.OnPropertyListCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.handler.MappedInterceptor;

/**
 * Auto-configuration of the HTTP job API ({@code delayqueue.http.enabled=true}) in a Spring
 * MVC application. Without Spring Security, requests need a bearer token of
 * {@code delayqueue.http.tokens}, and start-up fails when none is configured (unless
 * {@code delayqueue.http.allow-anonymous=true}); with Spring Security on the classpath, the
 * application's security configuration protects the API's paths instead.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(DispatcherServlet.class)
@ConditionalOnBooleanProperty("delayqueue.http.enabled")
@ConditionalOnBean(DelayQueueOperations.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueHttpAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DelayQueueHttpAutoConfiguration.class);

	private static final Pattern BASE_PATH = Pattern.compile("(/[A-Za-z0-9._~-]+)+");

	private static final String SPRING_SECURITY = "org.springframework.security.web.SecurityFilterChain";

	@Bean
	@ConditionalOnMissingBean
	ReserveWaiters delayQueueReserveWaiters(DelayQueueOperations operations, DelayQueueProperties properties) {
		return new ReserveWaiters(operations, properties.getHttp().getMaxWaiting());
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueHttpApi delayQueueHttpApi(DelayQueueOperations operations, ReserveWaiters waiters,
			ObjectProvider<JsonMapper> jsonMapper, DelayQueueProperties properties) {
		DelayQueueProperties.Http http = properties.getHttp();
		DelayQueueHttpApi.Limits limits = new DelayQueueHttpApi.Limits(http.getMaxBodySize().toBytes(),
				http.getMaxReserve(), http.getMaxWait());
		return new DelayQueueHttpApi(operations, waiters, jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()),
				limits, basePath(http));
	}

	static String basePath(DelayQueueProperties.Http http) {
		String basePath = http.getBasePath();
		if (basePath == null || !BASE_PATH.matcher(basePath).matches()) {
			throw new IllegalStateException("delayqueue.http.base-path must start with '/', not end with '/', and"
					+ " hold only letters, digits, '.', '_', '~' and '-' between slashes, was '" + basePath + "'");
		}
		return basePath;
	}

	// Without Spring Security the API checks bearer tokens itself
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(SPRING_SECURITY)
	static class TokenConfiguration {

		TokenConfiguration(DelayQueueProperties properties) {
			DelayQueueProperties.Http http = properties.getHttp();
			if (http.getTokens().isEmpty()) {
				if (!http.isAllowAnonymous()) {
					throw new IllegalStateException("delayqueue.http.enabled=true needs delayqueue.http.tokens (bearer"
							+ " tokens the API accepts), Spring Security on the classpath, or"
							+ " delayqueue.http.allow-anonymous=true for a trusted network");
				}
				logger.warn("The delayqueue HTTP job API at " + http.getBasePath()
						+ " takes requests without a token (delayqueue.http.allow-anonymous=true)");
			}
		}

		// a MappedInterceptor bean is applied by every handler mapping, to every handler
		@Bean
		@Conditional(OnTokensCondition.class)
		MappedInterceptor delayQueueHttpTokenInterceptor(DelayQueueProperties properties) {
			List<String> tokens = properties.getHttp().getTokens();
			if (tokens.stream().anyMatch((token) -> token == null || token.isBlank())) {
				throw new IllegalStateException("delayqueue.http.tokens must not hold a blank token");
			}
			return new MappedInterceptor(null, new BearerTokenInterceptor(tokens));
		}

	}

	static class OnTokensCondition extends OnPropertyListCondition {

		OnTokensCondition() {
			super("delayqueue.http.tokens", () -> ConditionMessage.forCondition("delayqueue.http.tokens"));
		}

	}

	// With Spring Security the application's configuration decides who may call the API
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = SPRING_SECURITY)
	static class SecuredConfiguration {

		SecuredConfiguration(DelayQueueProperties properties) {
			if (!properties.getHttp().getTokens().isEmpty()) {
				logger.warn("delayqueue.http.tokens is ignored: Spring Security is on the classpath and protects "
						+ properties.getHttp().getBasePath() + "/** as the application's security configuration says");
			}
		}

	}

}
