package io.github.delayqueue.web.autoconfigure;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.FailureAnalyses;
import io.github.delayqueue.http.AuthenticatedUserInterceptor;
import io.github.delayqueue.http.BearerTokenInterceptor;
import io.github.delayqueue.http.DelayQueueHttpApi;
import io.github.delayqueue.http.ReserveWaiters;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.yaml.snakeyaml.Yaml;

import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.MutuallyExclusiveConfigurationPropertiesException;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.handler.MappedInterceptor;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP job API appears only when asked for, in a Spring MVC application, and refuses to
 * start unprotected.
 */
@ExtendWith(RedisTestExtension.class)
class DelayQueueHttpAutoConfigurationTests {

	private WebApplicationContextRunner runner;

	private String[] redis;

	private String namespace;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.redis = redis.springBootProperties();
		this.namespace = "delayqueue.namespace=http" + System.nanoTime();
		this.runner = new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DispatcherServletAutoConfiguration.class, WebMvcAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayQueueHttpAutoConfiguration.class,
					DelayQueueWebPropertiesAutoConfiguration.class))
			.withPropertyValues(this.redis)
			.withPropertyValues(this.namespace);
	}

	@Test
	void offByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(DelayQueueHttpApi.class);
			assertThat(context).doesNotHaveBean(ReserveWaiters.class);
		});
	}

	@Test
	void aMisspeltPropertyFailsStartUpNamingTheClosest() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.tokn=a")
			.run((context) -> assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.startsWith("delayqueue.http.tokn is not a known property; did you mean delayqueue.http.tokens?"));
	}

	@Test
	void aMisspeltPropertyFailsStartUpAlsoWhileTheApiIsOff() {
		this.runner.withPropertyValues("delayqueue.http.enabeld=true")
			.run((context) -> assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.startsWith("delayqueue.http.enabeld is not a known property; did you mean delayqueue.http.enabled?"));
		this.runner.withPropertyValues("delayqueue.dashboard.patth=/jobs")
			.run((context) -> assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.startsWith("delayqueue.dashboard.patth is not a known property"));
	}

	@Test
	void withTokensTheApiAndItsTokenCheckForEveryHandlerAreThere() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.tokens=a,b",
				"delayqueue.http.base-path=/api/queue").run((context) -> {
					assertThat(context).hasSingleBean(DelayQueueHttpApi.class);
					MappedInterceptor interceptor = context.getBean("delayQueueHttpTokenInterceptor",
							MappedInterceptor.class);
					assertThat(interceptor.getInterceptor()).isInstanceOf(BearerTokenInterceptor.class);
					// not tied to a path: the handler decides, wherever it is mapped
					assertThat(interceptor.getIncludePathPatterns()).isNull();
					assertThat(interceptor.getExcludePathPatterns()).isNull();
				});
	}

	@Test
	void withoutTokensStartUpFailsNamingTheWaysOut() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("/delayqueue/**")
				.hasMessageContaining("delayqueue.http.tokens")
				.hasMessageContaining("delayqueue.http.secured-by-application=true")
				.hasMessageContaining("delayqueue.http.allow-anonymous=true");
		});
	}

	@Test
	void securedByTheApplicationTheApiChecksForAnAuthenticatedUserInsteadOfATokenForEveryHandler() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true")
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayQueueHttpApi.class);
				assertThat(context).doesNotHaveBean("delayQueueHttpTokenInterceptor");
				MappedInterceptor interceptor = context.getBean("delayQueueHttpUserInterceptor", MappedInterceptor.class);
				assertThat(interceptor.getInterceptor()).isInstanceOf(AuthenticatedUserInterceptor.class);
				assertThat(interceptor.getIncludePathPatterns()).isNull();
			});
	}

	@Test
	void securedByTheApplicationWithoutTheUserCheckFailsStartUp() {
		// as an application processed ahead of time without the property and started with it
		this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true")
			.withInitializer((context) -> context.addBeanFactoryPostProcessor(
					(beanFactory) -> ((BeanDefinitionRegistry) beanFactory)
						.removeBeanDefinition(DelayQueueHttpAutoConfiguration.USER_INTERCEPTOR_BEAN_NAME)))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("has no authenticated user check")
					.hasMessageContaining("processed ahead of time");
			});
	}

	@Test
	void configuredTokensAreCheckedEvenWhenTheApplicationSecuresTheApiToo() {
		this.runner
			.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true",
					"delayqueue.http.tokens=a")
			.run((context) -> assertThat(context.getBean("delayQueueHttpTokenInterceptor", MappedInterceptor.class)
				.getInterceptor()).isInstanceOf(BearerTokenInterceptor.class));
	}

	@Test
	void tokensWithoutTheTokenCheckFailStartUp() {
		// as an application processed ahead of time without tokens and started with some: the
		// condition of the token check was evaluated at build time
		this.runner
			.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.secured-by-application=true",
					"delayqueue.http.tokens=a")
			.withInitializer((context) -> context.addBeanFactoryPostProcessor(
					(beanFactory) -> ((BeanDefinitionRegistry) beanFactory)
						.removeBeanDefinition(DelayQueueHttpAutoConfiguration.TOKEN_INTERCEPTOR_BEAN_NAME)))
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).rootCause()
					.isInstanceOf(IllegalStateException.class)
					.hasMessageContaining("delayqueue.http.tokens is set, but the application has no token check")
					.hasMessageContaining("processed ahead of time");
			});
	}

	@Test
	void anonymousAccessCombinedWithAProtectionFailsStartUp() {
		for (String protection : List.of("delayqueue.http.tokens=a", "delayqueue.http.secured-by-application=true")) {
			this.runner
				.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.allow-anonymous=true", protection)
				.run((context) -> {
					assertThat(context).as(protection).hasFailed();
					assertThat(context.getStartupFailure()).as(protection)
						.rootCause()
						.isInstanceOf(MutuallyExclusiveConfigurationPropertiesException.class);
					assertThat(FailureAnalyses.of(context.getStartupFailure(), "delayqueue.http.allow-anonymous=true",
							protection)
						.getDescription()).as(protection)
						.contains("delayqueue.http.allow-anonymous")
						.contains(protection.substring(0, protection.indexOf('=')));
				});
		}
	}

	@Test
	void anonymousAccessMustBeAskedFor() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.allow-anonymous=true")
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayQueueHttpApi.class);
				assertThat(context).doesNotHaveBean("delayQueueHttpTokenInterceptor");
			});
	}

	@Test
	void badSettingsFailStartUpNamingTheProperty() {
		for (String setting : List.of("delayqueue.http.base-path=/queue/", "delayqueue.http.base-path=queue",
				"delayqueue.http.max-reserve=0", "delayqueue.http.max-wait=-1s", "delayqueue.http.max-waiting=0",
				"delayqueue.http.max-topics=0", "delayqueue.http.tokens=a,")) {
			String property = setting.substring(0, setting.indexOf('='));
			this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.tokens=a", setting)
				.run((context) -> {
					assertThat(context).as(setting).hasFailed();
					assertThat(FailureAnalyses.of(context.getStartupFailure())
						.getDescription()).as(setting)
						.contains("Property: " + property);
				});
		}
	}

	@Test
	void settingsOnlyTheApiOrTheDashboardUsesDoNotFailStartUpWhileTheyAreOff() {
		this.runner
			.withPropertyValues("delayqueue.http.base-path=queue", "delayqueue.http.max-reserve=0",
					"delayqueue.http.tokens=a,", "delayqueue.dashboard.path=no-slash",
					"delayqueue.dashboard.refresh-interval=10ms", "delayqueue.dashboard.role= ")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(DelayQueueHttpApi.class);
			});
	}

	@Test
	void notInAnApplicationWithoutSpringMvc() {
		this.runner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
			.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.tokens=a")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueHttpApi.class));
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayQueueHttpAutoConfiguration.class,
					DelayQueueWebPropertiesAutoConfiguration.class))
			.withPropertyValues(this.redis)
			.withPropertyValues(this.namespace)
			.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.tokens=a")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueHttpApi.class));
	}

	@Test
	void theOpenApiDescriptionHasEveryRouteOfTheApi() {
		this.runner.withPropertyValues("delayqueue.http.enabled=true", "delayqueue.http.tokens=a").run((context) -> {
			Set<String> routes = new HashSet<>();
			context.getBean("requestMappingHandlerMapping", RequestMappingHandlerMapping.class)
				.getHandlerMethods()
				.forEach((info, method) -> {
					if (method.getBeanType() == DelayQueueHttpApi.class) {
						routes.add(route(info));
					}
				});
			assertThat(routes).hasSize(15);

			Set<String> described = new HashSet<>();
			try (var in = DelayQueueHttpApi.class.getResourceAsStream("openapi.yaml")) {
				Map<String, Object> document = new Yaml().load(in);
				@SuppressWarnings("unchecked")
				Map<String, Map<String, Object>> paths = (Map<String, Map<String, Object>>) document.get("paths");
				paths.forEach((path, operations) -> operations.keySet()
					.forEach((method) -> described.add(method.toUpperCase() + " /delayqueue" + path)));
			}
			assertThat(described).isEqualTo(routes);
		});
	}

	private static String route(RequestMappingInfo info) {
		String method = info.getMethodsCondition().getMethods().iterator().next().name();
		String pattern = info.getPathPatternsCondition().getPatternValues().iterator().next();
		return method + " " + pattern;
	}

}
