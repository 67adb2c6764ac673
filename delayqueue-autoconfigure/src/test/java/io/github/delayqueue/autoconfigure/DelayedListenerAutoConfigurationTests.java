package io.github.delayqueue.autoconfigure;

import java.util.List;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.annotation.DelayedListenerAnnotationBeanPostProcessor;
import io.github.delayqueue.annotation.DelayedListenerBootstrapConfiguration;
import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.listener.DelayedListenerContainer;
import io.github.delayqueue.listener.JobOutcome;
import io.github.delayqueue.listener.JobOutcomeStream;
import io.github.delayqueue.redis.RedisJobOutcomeStream;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.MessageHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;

import static org.assertj.core.api.Assertions.assertThat;

@ExtendWith(RedisTestExtension.class)
class DelayedListenerAutoConfigurationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayedListenerAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=listen" + System.nanoTime());
	}

	@Test
	void defaultsRegisterTheFactoryPostProcessorAndRegistryAndStartListeners() {
		this.runner.withUserConfiguration(GoodListenerConfig.class).run((context) -> {
			assertThat(context).hasSingleBean(DefaultDelayedListenerContainerFactory.class);
			assertThat(context).hasSingleBean(DelayedListenerAnnotationBeanPostProcessor.class);
			DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
			assertThat(registry.isRunning()).isTrue();
			assertThat(registry.getPhase()).isEqualTo(Integer.MAX_VALUE - 100);
			DelayedListenerContainer container = registry.getListenerContainer("good");
			assertThat(container.isRunning()).isTrue();
			assertThat(container.getTopic()).isEqualTo("good-topic");
			assertThat(container.getConcurrency()).isEqualTo(1);
		});
	}

	@Test
	void theOutcomeStreamIsThereAndPublishesOnlyWhenSwitchedOnWhichAlsoSwitchesOnOutcomeEvents() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisJobOutcomeStream.class);
			assertThat(context.getBean(RedisJobOutcomeStream.class)).hasFieldOrPropertyWithValue("publishing", false);
			assertThat(context.getBean(DefaultDelayedListenerContainerFactory.class))
				.hasFieldOrPropertyWithValue("containerProperties.outcomeEvents", false);
		});
		this.runner.withPropertyValues("delayqueue.listener.outcome-stream=true").run((context) -> {
			assertThat(context.getBean(RedisJobOutcomeStream.class)).hasFieldOrPropertyWithValue("publishing", true);
			assertThat(context.getBean(RedisJobOutcomeStream.class).isRunning()).isTrue();
			assertThat(context.getBean(DefaultDelayedListenerContainerFactory.class))
				.hasFieldOrPropertyWithValue("containerProperties.outcomeEvents", true);
		});
		this.runner.withBean("myOutcomes", JobOutcomeStream.class, OwnOutcomes::new)
			.run((context) -> {
				assertThat(context).hasSingleBean(JobOutcomeStream.class);
				assertThat(context).doesNotHaveBean(RedisJobOutcomeStream.class);
			});
	}

	/** An application's own stream, in place of the Redis one. */
	static class OwnOutcomes implements JobOutcomeStream {

		@Override
		public Subscription subscribe(String topic, java.util.function.Consumer<JobOutcome> consumer) {
			return () -> {
			};
		}

		@Override
		public java.util.concurrent.CompletableFuture<JobOutcome> whenDone(String topic, String id) {
			return new java.util.concurrent.CompletableFuture<>();
		}

	}

	@Test
	void propertiesAndPlaceholdersShapeTheContainers() {
		this.runner.withUserConfiguration(GoodListenerConfig.class)
			.withPropertyValues("delayqueue.listener.concurrency=3", "delayqueue.listener.auto-startup=false",
					"good.topic=from-property")
			.run((context) -> {
				DelayedListenerContainer container = context.getBean(DelayedListenerEndpointRegistry.class)
					.getListenerContainer("good");
				assertThat(container.getConcurrency()).isEqualTo(3);
				assertThat(container.isRunning()).isFalse();
				assertThat(container.getTopic()).isEqualTo("from-property");
			});
	}

	@Test
	void userContainerFactoryWins() {
		this.runner.withUserConfiguration(GoodListenerConfig.class, UserFactoryConfig.class).run((context) -> {
			assertThat(context).doesNotHaveBean(DefaultDelayedListenerContainerFactory.class);
			assertThat(context.getBean(DelayedListenerEndpointRegistry.class).getListenerContainer("good").getConcurrency())
				.isEqualTo(7);
		});
	}

	@Test
	void backsOffWithoutAQueueOrWithoutSpringMessaging() {
		this.runner.withPropertyValues("delayqueue.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(DelayedListenerContainerFactory.class);
			assertThat(context).doesNotHaveBean(DelayedListenerEndpointRegistry.class);
		});
		this.runner.withClassLoader(new FilteredClassLoader(MessageHandlerMethodFactory.class)).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context).doesNotHaveBean(DelayedListenerContainerFactory.class);
			assertThat(context).doesNotHaveBean(DelayedListenerBootstrapConfiguration.REGISTRY_BEAN_NAME);
		});
	}

	@Test
	void aSecondFactoryMadeWithTheConfigurerStartsFromTheSameSettings() {
		this.runner.withUserConfiguration(SecondFactoryConfig.class)
			.withPropertyValues("delayqueue.listener.concurrency=2", "delayqueue.listener.auto-startup=false")
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayedListenerContainerFactoryConfigurer.class);
				DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
				DelayedListenerContainer usual = registry.getListenerContainer("usual");
				assertThat(usual.getConcurrency()).isEqualTo(2);
				assertThat(usual.isRunning()).isFalse();
				// the property's auto-startup, and the concurrency the factory set after configure
				DelayedListenerContainer wide = registry.getListenerContainer("wide");
				assertThat(wide.getConcurrency()).isEqualTo(5);
				assertThat(wide.isRunning()).isFalse();
			});
	}

	static class TwoFactoriesListener {

		@DelayedListener(id = "usual", topic = "usual")
		void usual(String payload) {
		}

		@DelayedListener(id = "wide", topic = "wide", containerFactory = "wideFactory")
		void wide(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class SecondFactoryConfig {

		@Bean
		TwoFactoriesListener twoFactoriesListener() {
			return new TwoFactoriesListener();
		}

		@Bean
		DefaultDelayedListenerContainerFactory wideFactory(DelayedListenerContainerFactoryConfigurer configurer,
				io.github.delayqueue.core.DelayQueueOperations operations,
				io.github.delayqueue.core.JobPayloadConverter converter) {
			DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(operations,
					converter);
			configurer.configure(factory);
			factory.getContainerProperties().setConcurrency(5);
			return factory;
		}

	}

	// ---------------------------------------------------------------- start-up errors

	@Test
	void listenerWithoutParametersFailsStartUpNamingBeanMethodAndFix() {
		assertStartupFailure(NoParameterConfig.class, "@DelayedListener method 'close' of bean 'noParameterListener'",
				"takes no parameters", "declare the payload parameter");
	}

	@Test
	void listenerWithTwoPayloadParametersFailsStartUp() {
		assertStartupFailure(TwoPayloadsConfig.class, "@DelayedListener method 'close' of bean 'twoPayloadsListener'",
				"has 2 payload parameters [String a, String b]", "one payload parameter at most");
	}

	@Test
	void listenerWithInvalidTopicFailsStartUp() {
		assertStartupFailure(BadTopicConfig.class, "@DelayedListener method 'close' of bean 'badTopicListener'",
				"topic 'order:close' may only contain", "fix the topic");
	}

	@Test
	void listenerWithUnresolvablePlaceholderFailsStartUp() {
		assertStartupFailure(PlaceholderConfig.class, "@DelayedListener method 'close' of bean 'placeholderListener'",
				"has topic \"${missing.topic}\", which cannot be resolved",
				"define the property or give the placeholder a default");
	}

	@Test
	void listenerWithBadSettingFailsStartUp() {
		assertStartupFailure(BadConcurrencyConfig.class, "bean 'badConcurrencyListener'",
				"has concurrency \"many\"", "set concurrency to a whole number from 1 to 10000");
	}

	@Test
	void listenerWithABadRateLimitFailsStartUp() {
		assertStartupFailure(BadRateLimitConfig.class, "bean 'badRateLimitListener'", "has rateLimit \"50 per second\"",
				"set rateLimit to <permits>/<interval> such as 50/1s, 100/s or 600/1m (1 to 100000 per 1s to 1d)");
	}

	@Test
	void aListenersRateLimitIsTheTopicsAndAnotherLimitOfTheTopicFailsStartUp() {
		this.runner.withUserConfiguration(RateLimitedConfig.class).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DelayQueueOperations.class).rateLimit("limited"))
				.contains(RateLimit.parse("5/1s"));
		});
		this.runner.withUserConfiguration(RateLimitedConfig.class)
			.withPropertyValues("delayqueue.listener.rate-limit.limited=6/1s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasMessageContainingAll("rateLimitedListener",
						"cannot have its rate limit: topic 'limited' has the rate limit 6/PT1S already; it cannot also"
								+ " have 5/PT1S (one limit per topic, the same on every instance)");
			});
		this.runner.withPropertyValues("delayqueue.listener.rate-limit.limited=fast").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.listener.rate-limit[limited]")
				.contains("rate limit must be <permits>/<interval> such as 50/1s, 100/s or 600/1m, was 'fast'");
		});
		this.runner.withPropertyValues("delayqueue.listener.rate-limit[mail.v2]=7/1m").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DelayQueueOperations.class).rateLimit("mail.v2"))
				.contains(new RateLimit(7, java.time.Duration.ofMinutes(1)));
		});
		this.runner.withPropertyValues("delayqueue.listener.rate-limit.limited=7/1m").run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DelayQueueOperations.class).rateLimit("limited"))
				.contains(new RateLimit(7, java.time.Duration.ofMinutes(1)));
		});
	}

	@Test
	void listenerWithAHeaderNoJobCarriesFailsStartUp() {
		assertStartupFailure(UnknownHeaderConfig.class, "@DelayedListener method 'close' of bean 'unknownHeaderListener'",
				"has a @Header(\"delayqueue_atempt\") parameter, but no job carries a header of that name",
				"use a name from DelayQueueHeaders");
	}

	@Test
	void listenerWithAHeaderOfAnUnconvertibleTypeFailsStartUp() {
		assertStartupFailure(HeaderTypeConfig.class, "@DelayedListener method 'close' of bean 'headerTypeListener'",
				"has a @Header(\"delayqueue_ttr\") parameter of type long, but the header holds Duration values",
				"declare the parameter as Duration");
	}

	@Test
	void listenerWithAnInterceptorTheBeanFactoryCannotMakeFailsStartUp() {
		assertStartupFailure(BadInterceptorConfig.class,
				"@DelayedListener method 'close' of bean 'badInterceptorListener'",
				"names interceptor " + NeedsMissingBean.class.getName() + ", which cannot be made",
				"give it a constructor the bean factory can call");
	}

	@Test
	void listenerNamingAnInterceptorThatIsABeanFailsStartUp() {
		assertStartupFailure(InterceptorBeanConfig.class,
				"@DelayedListener method 'close' of bean 'beanInterceptorListener'",
				"names interceptor " + PlainInterceptor.class.getName() + ", which is a bean",
				"remove it from interceptors, or do not declare it as a bean");
	}

	static class PlainInterceptor implements io.github.delayqueue.listener.DelayedJobInterceptor {

	}

	static class BeanInterceptorListener {

		@DelayedListener(topic = "t", interceptors = PlainInterceptor.class)
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class InterceptorBeanConfig {

		@Bean
		PlainInterceptor plainInterceptor() {
			return new PlainInterceptor();
		}

		@Bean
		BeanInterceptorListener beanInterceptorListener() {
			return new BeanInterceptorListener();
		}

	}

	static class NeedsMissingBean implements io.github.delayqueue.listener.DelayedJobInterceptor {

		NeedsMissingBean(java.util.concurrent.Executor nowhere) {
		}

	}

	static class BadInterceptorListener {

		@DelayedListener(topic = "t", interceptors = NeedsMissingBean.class)
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadInterceptorConfig {

		@Bean
		BadInterceptorListener badInterceptorListener() {
			return new BadInterceptorListener();
		}

	}

	@Test
	void listenerWithABackOffOfItsOwnBesideAnErrorHandlerFailsStartUp() {
		assertStartupFailure(BackOffBesideErrorHandlerConfig.class,
				"@DelayedListener method 'close' of bean 'backOffListener'",
				"sets backOffInitial, noRetryFor, but its container factory has an error handler",
				"remove these attributes, or use a container factory without an error handler");
	}

	static class BackOffListener {

		@DelayedListener(topic = "t", backOffInitial = "2s", noRetryFor = IllegalStateException.class)
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BackOffBesideErrorHandlerConfig {

		@Bean
		BackOffListener backOffListener() {
			return new BackOffListener();
		}

		@Bean
		io.github.delayqueue.listener.DelayedJobErrorHandler errorHandler() {
			return (job, failure, container, consumer) -> io.github.delayqueue.listener.DelayedJobErrorHandler.Outcome.LEFT;
		}

	}

	@Test
	void optionalAndConvertibleHeadersStartUp() {
		this.runner.withUserConfiguration(OptionalHeadersConfig.class).run((context) -> assertThat(context).hasNotFailed());
	}

	private void assertStartupFailure(Class<?> config, String... parts) {
		this.runner.withUserConfiguration(config).run((context) -> {
			assertThat(context).hasFailed();
			Throwable failure = context.getStartupFailure();
			List<String> messages = new java.util.ArrayList<>();
			for (Throwable t = failure; t != null; t = t.getCause()) {
				messages.add(t.getMessage());
			}
			assertThat(String.join("\n", messages)).contains(parts);
		});
	}

	static class GoodListener {

		@DelayedListener(id = "good", topic = "${good.topic:good-topic}")
		void handle(String payload, DelayedJob<String> job) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class GoodListenerConfig {

		@Bean
		GoodListener goodListener() {
			return new GoodListener();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UserFactoryConfig {

		@Bean
		DelayedListenerContainerFactory delayedListenerContainerFactory(
				io.github.delayqueue.core.DelayQueueOperations operations,
				io.github.delayqueue.core.JobPayloadConverter converter) {
			DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(operations,
					converter);
			factory.getContainerProperties().setConcurrency(7);
			return factory::createContainer;
		}

	}

	static class NoParameterListener {

		@DelayedListener(topic = "t")
		void close() {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NoParameterConfig {

		@Bean
		NoParameterListener noParameterListener() {
			return new NoParameterListener();
		}

	}

	static class TwoPayloadsListener {

		@DelayedListener(topic = "t")
		void close(String a, String b) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TwoPayloadsConfig {

		@Bean
		TwoPayloadsListener twoPayloadsListener() {
			return new TwoPayloadsListener();
		}

	}

	static class BadTopicListener {

		@DelayedListener(topic = "order:close")
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadTopicConfig {

		@Bean
		BadTopicListener badTopicListener() {
			return new BadTopicListener();
		}

	}

	static class PlaceholderListener {

		@DelayedListener(topic = "${missing.topic}")
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class PlaceholderConfig {

		@Bean
		PlaceholderListener placeholderListener() {
			return new PlaceholderListener();
		}

	}

	static class BadConcurrencyListener {

		@DelayedListener(topic = "t", concurrency = "many")
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadConcurrencyConfig {

		@Bean
		BadConcurrencyListener badConcurrencyListener() {
			return new BadConcurrencyListener();
		}

	}

	static class BadRateLimitListener {

		@DelayedListener(topic = "t", rateLimit = "50 per second")
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class BadRateLimitConfig {

		@Bean
		BadRateLimitListener badRateLimitListener() {
			return new BadRateLimitListener();
		}

	}

	static class RateLimitedListener {

		@DelayedListener(topic = "limited", rateLimit = "5/1s", autoStartup = "false")
		void close(String payload) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class RateLimitedConfig {

		@Bean
		RateLimitedListener rateLimitedListener() {
			return new RateLimitedListener();
		}

	}

	static class UnknownHeaderListener {

		@DelayedListener(topic = "t")
		void close(String payload, @Header("delayqueue_atempt") int attempt) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class UnknownHeaderConfig {

		@Bean
		UnknownHeaderListener unknownHeaderListener() {
			return new UnknownHeaderListener();
		}

	}

	static class HeaderTypeListener {

		@DelayedListener(topic = "t")
		void close(String payload, @Header(DelayQueueHeaders.TTR) long ttr) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class HeaderTypeConfig {

		@Bean
		HeaderTypeListener headerTypeListener() {
			return new HeaderTypeListener();
		}

	}

	static class OptionalHeadersListener {

		@DelayedListener(topic = "t")
		void close(String payload, @Header(name = "tenant", required = false) String tenant,
				@Header(MessageHeaders.ID) Object id, @Header(DelayQueueHeaders.ATTEMPT) long attempt,
				@Header(DelayQueueHeaders.DUE_AT) String dueAt) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OptionalHeadersConfig {

		@Bean
		OptionalHeadersListener optionalHeadersListener() {
			return new OptionalHeadersListener();
		}

	}

	// with only the starter and spring.main.lazy-initialization, start-up still refuses a forward that
	// cannot work, as it refuses the other settings' rules

	@Test
	void lazyInitializationStillRefusesTheOtherSettingsRules() {
		lazy().withPropertyValues("delayqueue.metrics.sample-interval=1ms")
			.run((context) -> assertThat(context).hasFailed());
	}

	@Test
	void lazyInitializationStillRefusesAForwardThatNamesNoBroker() {
		lazy().withPropertyValues("delayqueue.forward.x.concurrency=3")
			.run((context) -> assertThat(context).as("forward naming no broker, only the starter, lazy").hasFailed());
	}

	@Test
	void lazyInitializationStillRefusesAForwardWithoutItsModule() {
		lazy().withPropertyValues("delayqueue.forward.x.kafka.topic=orders")
			.run((context) -> assertThat(context).as("kafka forward, only the starter, lazy").hasFailed());
	}

	private ApplicationContextRunner lazy() {
		return this.runner.withInitializer(
				(context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()));
	}

}
