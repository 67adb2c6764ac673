package io.github.delayqueue.listener;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.annotation.DelayedListener;
import io.github.delayqueue.config.DelayedListenerConfigurer;
import io.github.delayqueue.config.DelayedListenerContainerFactory;
import io.github.delayqueue.config.DelayedListenerEndpoint;
import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.config.InvalidDelayedListenerException;
import io.github.delayqueue.config.MethodDelayedListenerEndpoint;
import io.github.delayqueue.config.SimpleDelayedListenerEndpoint;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.test.QueueInvariant;
import io.github.delayqueue.test.RedisTestServers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.MethodParameter;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.support.DefaultMessageHandlerMethodFactory;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.messaging.handler.invocation.HandlerMethodArgumentResolver;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;
import org.springframework.validation.annotation.Validated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Endpoints registered in code: lambdas registered, started, stopped and removed at run time
 * through the registry, and from a {@link DelayedListenerConfigurer} at start-up with the
 * registrar's validator and argument resolvers. Each test ends with the queue's invariant.
 */
class DelayedListenerEndpointRegistryTests {

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	record Order(String number, int cents) {
	}

	@Configuration(proxyBeanMethods = false)
	static class NoListeners {

	}

	@Test
	void aLambdaEndpointRegisteredAtRunTimeReceivesJobsAndIsStoppedStartedAndUnregisteredById() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedListenerContainerFactory factory = context.getBean(DelayedListenerContainerFactory.class);
		List<String> received = new CopyOnWriteArrayList<>();
		SimpleDelayedListenerEndpoint<Order> endpoint = new SimpleDelayedListenerEndpoint<>("orders-at-run-time",
				"run-time-orders", Order.class,
				(job) -> received.add(job.id() + ":" + job.payload().number() + "@" + job.attempt()));
		endpoint.setConcurrency(2);

		DelayedListenerContainer container = registry.registerListenerContainer(endpoint, factory);
		assertThat(container.isRunning()).isTrue();
		assertThat(container.getConcurrency()).isEqualTo(2);
		assertThat(registry.getListenerContainer("orders-at-run-time")).isSameAs(container);
		template.schedule("run-time-orders", "1", new Order("A-1", 100), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(received).containsExactly("1:A-1@1"));

		registry.stopListenerContainer("orders-at-run-time");
		assertThat(container.isRunning()).isFalse();
		assertThat(container.getInFlight()).isZero();
		template.schedule("run-time-orders", "2", new Order("A-2", 200), Duration.ZERO);
		// nothing takes it while the container is stopped: it stays READY, not reserved
		assertThat(template.find("run-time-orders", "2")).map(JobInfo::state).contains(JobState.READY);

		registry.startListenerContainer("orders-at-run-time");
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(received).containsExactly("1:A-1@1", "2:A-2@1"));

		assertThat(registry.unregisterListenerContainer("orders-at-run-time")).isSameAs(container);
		assertThat(container.isRunning()).isFalse();
		assertThat(registry.getListenerContainer("orders-at-run-time")).isNull();
		assertThat(registry.getListenerContainers()).doesNotContain(container);
		assertThat(registry.unregisterListenerContainer("orders-at-run-time")).isNull();
		assertThatIllegalArgumentException().isThrownBy(() -> registry.startListenerContainer("orders-at-run-time"))
			.withMessageContaining("No listener container has id 'orders-at-run-time'");
		template.schedule("run-time-orders", "3", new Order("A-3", 300), Duration.ZERO);
		assertThat(template.find("run-time-orders", "3")).map(JobInfo::state).contains(JobState.READY);

		// the id is free again; the context's close stops what was registered at run time
		DelayedListenerContainer again = registry.registerListenerContainer(new SimpleDelayedListenerEndpoint<>(
				"orders-at-run-time", "run-time-orders", Order.class, (job) -> received.add(job.id() + ":again")),
				factory);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(received).contains("3:again"));
		assertThat(received).hasSize(3);
		assertInvariant();
		context.close();
		assertThat(again.isRunning()).isFalse();
	}

	@Test
	void aLambdaEndpointThatDoesNotStartByItselfWaitsForStartById() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		List<List<Order>> received = new CopyOnWriteArrayList<>();
		SimpleDelayedListenerEndpoint<List<Order>> endpoint = new SimpleDelayedListenerEndpoint<>("manual",
				"order-lists", new ParameterizedTypeReference<>() {
				}, (job) -> received.add(job.payload()));
		endpoint.setAutoStartup(false);
		DelayedListenerContainer container = registry.registerListenerContainer(endpoint,
				context.getBean(DelayedListenerContainerFactory.class));
		assertThat(container.isRunning()).isFalse();
		template.schedule("order-lists", "1", List.of(new Order("B-1", 1), new Order("B-2", 2)), Duration.ZERO);
		assertThat(template.find("order-lists", "1")).map(JobInfo::state).contains(JobState.READY);
		registry.startListenerContainer("manual");
		await().atMost(Duration.ofSeconds(10)).untilAsserted(
				() -> assertThat(received).containsExactly(List.of(new Order("B-1", 1), new Order("B-2", 2))));
		assertInvariant();
	}

	@Test
	void aPayloadTheLambdaEndpointCannotReadFailsTheJobWithoutARetryAndTheListenerIsNotCalled() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		List<String> called = new CopyOnWriteArrayList<>();
		context.getBean(DelayedListenerEndpointRegistry.class)
			.registerListenerContainer(new SimpleDelayedListenerEndpoint<>("strict", "strict-orders", Order.class,
					(job) -> called.add(job.id())), context.getBean(DelayedListenerContainerFactory.class));
		template.job("strict-orders", "not-an-order").payload("\"just text\"").delay(Duration.ZERO).maxAttempts(5)
			.schedule();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("strict-orders", "not-an-order")).map(JobInfo::state)
				.contains(JobState.DEAD));
		JobInfo dead = template.find("strict-orders", "not-an-order").orElseThrow();
		assertThat(dead.attempt()).isEqualTo(1);
		assertThat(dead.lastError()).contains("Could not read payload as " + Order.class.getName());
		assertThat(called).isEmpty();
		assertInvariant();
	}

	@Test
	void anEndpointWhoseIdIsTakenIsRefusedAndTheRegisteredOneRunsOn() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedListenerContainerFactory factory = context.getBean(DelayedListenerContainerFactory.class);
		List<String> first = new CopyOnWriteArrayList<>();
		DelayedListenerContainer container = registry.registerListenerContainer(
				new SimpleDelayedListenerEndpoint<>("taken", "taken-a", String.class, (job) -> first.add(job.id())),
				factory);
		assertThatExceptionOfType(InvalidDelayedListenerException.class)
			.isThrownBy(() -> registry.registerListenerContainer(
					new SimpleDelayedListenerEndpoint<>("taken", "taken-b", String.class, (job) -> {
					}), factory))
			.withMessageContaining("uses id 'taken', which another listener has already");
		assertThat(registry.getListenerContainer("taken")).isSameAs(container);
		assertThat(container.isRunning()).isTrue();
		context.getBean(DelayedJobTemplate.class).schedule("taken-a", "1", "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(first).containsExactly("1"));
		assertInvariant();
	}

	@Test
	void endpointSettingsAreCheckedWhenSetAndNameTheField() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new SimpleDelayedListenerEndpoint<>("bad", "no spaces", String.class, (job) -> {
			}))
			.withMessageContaining("topic");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new SimpleDelayedListenerEndpoint<>(" ", "fine", String.class, (job) -> {
			}))
			.withMessageContaining("id");
		SimpleDelayedListenerEndpoint<String> endpoint = new SimpleDelayedListenerEndpoint<>("ok", "fine",
				String.class, (job) -> {
				});
		assertThatIllegalArgumentException().isThrownBy(() -> endpoint.setConcurrency(0))
			.withMessageContaining("concurrency");
		assertThatIllegalArgumentException().isThrownBy(() -> endpoint.setMaxAttempts(0))
			.withMessageContaining("maxAttempts");
		assertThatIllegalArgumentException().isThrownBy(() -> endpoint.setTtr(Duration.ZERO))
			.withMessageContaining("ttr");
		assertThat(endpoint.concurrency()).isNull();
		assertThat(endpoint.maxAttempts()).isNull();
		assertThat(endpoint.ttr()).isNull();
	}

	@Test
	void aContainerThatUnregistersItselfFromItsOwnHandlerFinishesTheJobAndStops() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		CountDownLatch unregistered = new CountDownLatch(1);
		List<String> steps = new CopyOnWriteArrayList<>();
		DelayedListenerContainer container = registry.registerListenerContainer(
				new SimpleDelayedListenerEndpoint<>("once", "once", String.class, (job) -> {
					// waiting here for its own stop would wait for itself: it returns at once
					steps.add("unregistered " + (registry.unregisterListenerContainer("once") != null));
					unregistered.countDown();
					steps.add("handler done");
				}), context.getBean(DelayedListenerContainerFactory.class));
		template.schedule("once", "1", "x", Duration.ZERO);
		assertThat(unregistered.await(10, TimeUnit.SECONDS)).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> !container.isRunning()
				&& template.find("once", "1").isEmpty());
		assertThat(steps).containsExactly("unregistered true", "handler done");
		assertThat(registry.getListenerContainer("once")).isNull();
		assertInvariant();
	}

	@Test
	void theContextsCloseWaitsForAContainerWhoseUnregisterIsUnderWay() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> steps = new CopyOnWriteArrayList<>();
		registry.registerListenerContainer(new SimpleDelayedListenerEndpoint<>("held", "held", String.class, (job) -> {
			running.countDown();
			release.await();
			steps.add("handler done");
		}), context.getBean(DelayedListenerContainerFactory.class));
		template.schedule("held", "1", "x", Duration.ZERO);
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		Thread unregistering = new Thread(() -> registry.unregisterListenerContainer("held"), "unregistering");
		unregistering.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> registry.getListenerContainer("held") == null);
		Thread stopping = new Thread(() -> {
			registry.stop();
			steps.add("registry stopped");
		}, "stopping");
		stopping.start();
		// the registry's stop waits for the handler of the container no longer registered
		stopping.join(500);
		assertThat(stopping.isAlive()).isTrue();
		release.countDown();
		stopping.join(10_000);
		unregistering.join(10_000);
		assertThat(steps).containsExactly("handler done", "registry stopped");
		await().atMost(Duration.ofSeconds(5)).until(() -> template.find("held", "1").isEmpty());
		assertInvariant();
	}

	@Test
	void aContainerThatCannotStartIsNotKeptAndItsIdStaysFree() {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedListenerContainerFactory real = context.getBean(DelayedListenerContainerFactory.class);
		DelayedListenerContainerFactory failing = (endpoint) -> {
			DelayedListenerContainer container = real.createContainer(endpoint);
			return (DelayedListenerContainer) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
					new Class<?>[] { DelayedListenerContainer.class }, (proxy, method, args) -> {
						if (method.getName().equals("start")) {
							throw new OutOfMemoryError("unable to create native thread");
						}
						return method.invoke(container, args);
					});
		};
		SimpleDelayedListenerEndpoint<String> endpoint = new SimpleDelayedListenerEndpoint<>("fragile", "fragile",
				String.class, (job) -> {
				});
		assertThatExceptionOfType(OutOfMemoryError.class)
			.isThrownBy(() -> registry.registerListenerContainer(endpoint, failing));
		assertThat(registry.getListenerContainer("fragile")).isNull();
		assertThat(registry.registerListenerContainer(endpoint, real).isRunning()).isTrue();
	}

	static class TwoPayloads {

		public void on(String first, String second) {
		}

	}

	@Test
	void anEndpointTheRegistryCannotRunIsRefusedWithTheReason() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedListenerContainerFactory factory = context.getBean(DelayedListenerContainerFactory.class);
		MethodDelayedListenerEndpoint twoPayloads = new MethodDelayedListenerEndpoint("two", "two", new TwoPayloads(),
				TwoPayloads.class.getMethod("on", String.class, String.class), "twoPayloads", null, null, null, null,
				null, null, null, List.of(), null, List.of(), null, null);
		assertThatExceptionOfType(InvalidDelayedListenerException.class)
			.isThrownBy(() -> registry.registerListenerContainer(twoPayloads, factory))
			.withMessageContaining("has 2 payload parameters");
		DelayedListenerEndpoint badTopic = new DelayedListenerEndpoint() {

			@Override
			public String id() {
				return "bad-topic";
			}

			@Override
			public String topic() {
				return "no spaces allowed";
			}

			@Override
			public String describe() {
				return "Endpoint 'bad-topic'";
			}

			@Override
			public DelayedJobHandler createHandler(MessageHandlerMethodFactory methodFactory,
					DelayedJobArgumentResolver jobs) {
				return (message) -> {
				};
			}

		};
		assertThatExceptionOfType(InvalidDelayedListenerException.class)
			.isThrownBy(() -> registry.registerListenerContainer(badTopic, factory))
			.withMessageContaining("Endpoint 'bad-topic' has an invalid topic");
		assertThat(registry.getListenerContainers()).isEmpty();
	}

	@Test
	void aContainerFactoryOfTheApplicationsOwnStillHasTwoPayloadParametersRefused() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayQueueOperations operations = context.getBean(DelayedJobTemplate.class).getOperations();
		DelayedJobArgumentResolver jobs = new DelayedJobArgumentResolver(operations,
				context.getBean(JobPayloadConverter.class));
		// a factory of its own (docs/consuming.md: it may return another container), with spring-messaging's
		// method factory: the registry still refuses an endpoint with two payload parameters
		DefaultMessageHandlerMethodFactory methods = new DefaultMessageHandlerMethodFactory();
		methods.setMessageConverter(jobs);
		methods.setCustomArgumentResolvers(List.of(jobs));
		methods.afterPropertiesSet();
		DelayedListenerContainerFactory own = (endpoint) -> new DefaultDelayedListenerContainer(
				new ContainerProperties(endpoint.id(), endpoint.topic()), operations,
				endpoint.createHandler(methods, jobs));
		MethodDelayedListenerEndpoint twoPayloads = new MethodDelayedListenerEndpoint("two-own", "two-own",
				new TwoPayloads(), TwoPayloads.class.getMethod("on", String.class, String.class), "twoPayloads", null,
				null, null, null, null, null, null, List.of(), null, List.of(), null, null);
		assertThatExceptionOfType(InvalidDelayedListenerException.class)
			.isThrownBy(() -> registry.registerListenerContainer(twoPayloads, own))
			.withMessageContaining("has 2 payload parameters");
		assertThat(registry.getListenerContainers()).isEmpty();
	}

	/**
	 * Threads register, unregister, start and stop containers of four ids at random while
	 * jobs run and the context closes under them: afterwards no container made runs and no
	 * consumer or handler thread of them is left, and the queue's invariant holds.
	 */
	@Test
	void registerUnregisterStartAndStopRacingEachOtherAndTheContextsCloseLeaveNothingRunning() throws Exception {
		ConfigurableApplicationContext context = this.apps.run(NoListeners.class, "delayqueue.buckets=1",
				"delayqueue.listener.shutdown-timeout=5s");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		DelayedListenerEndpointRegistry registry = context.getBean(DelayedListenerEndpointRegistry.class);
		DelayedListenerContainerFactory factory = context.getBean(DelayedListenerContainerFactory.class);
		for (int i = 0; i < 200; i++) {
			template.schedule("racing", "job-" + i, "x", Duration.ZERO);
		}
		java.util.Set<DelayedListenerContainer> made = java.util.concurrent.ConcurrentHashMap.newKeySet();
		java.util.concurrent.atomic.AtomicBoolean going = new java.util.concurrent.atomic.AtomicBoolean(true);
		List<Throwable> unexpected = new CopyOnWriteArrayList<>();
		List<Thread> threads = new java.util.ArrayList<>();
		for (int t = 0; t < 6; t++) {
			java.util.SplittableRandom random = new java.util.SplittableRandom(t);
			threads.add(new Thread(() -> {
				while (going.get()) {
					String id = "racer-" + random.nextInt(4);
					try {
						switch (random.nextInt(4)) {
							case 0 -> made.add(registry.registerListenerContainer(
									new SimpleDelayedListenerEndpoint<>(id, "racing", String.class, (job) -> {
									}), factory));
							case 1 -> registry.unregisterListenerContainer(id);
							case 2 -> registry.startListenerContainer(id);
							default -> registry.stopListenerContainer(id);
						}
					}
					catch (IllegalArgumentException | IllegalStateException ex) {
						// a taken id, an unknown one, or a start once the registry has stopped
					}
					catch (Throwable ex) {
						unexpected.add(ex);
					}
				}
			}, "racer-thread-" + t));
		}
		threads.forEach(Thread::start);
		await().atMost(Duration.ofSeconds(20)).until(() -> made.size() >= 20);
		context.close();
		going.set(false);
		for (Thread thread : threads) {
			thread.join(30_000);
			assertThat(thread.isAlive()).as(thread.getName()).isFalse();
		}
		// a start that slipped past the close is stopped again by the registry
		registry.stop();
		assertThat(unexpected).isEmpty();
		assertThat(made).allSatisfy((container) -> assertThat(container.isRunning()).as(container.toString()).isFalse());
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(Thread.getAllStackTraces().keySet())
			.noneMatch((thread) -> thread.getName().startsWith("delayqueue-racer-")));
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

	// ------------------------------------------------------------------ registrar

	/** A parameter bound by the registrar's custom resolver, not read from the payload. */
	record Tenant(String name) {
	}

	static class TenantResolver implements HandlerMethodArgumentResolver {

		@Override
		public boolean supportsParameter(MethodParameter parameter) {
			return parameter.getParameterType() == Tenant.class;
		}

		@Override
		public Object resolveArgument(MethodParameter parameter, Message<?> message) {
			return new Tenant("tenant-of-" + message.getHeaders().get(DelayQueueHeaders.ID));
		}

	}

	/** Refuses orders without cents. */
	static class OrderValidator implements Validator {

		@Override
		public boolean supports(Class<?> type) {
			return Order.class == type;
		}

		@Override
		public void validate(Object target, Errors errors) {
			if (((Order) target).cents() <= 0) {
				errors.rejectValue("cents", "positive", "cents must be positive");
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ConfiguredListeners {

		final List<String> received = new CopyOnWriteArrayList<>();

		@Bean
		DelayedListenerConfigurer configurer() {
			return (registrar) -> {
				registrar.setValidator(new OrderValidator());
				registrar.setCustomMethodArgumentResolvers(new TenantResolver());
				registrar.registerEndpoint(new SimpleDelayedListenerEndpoint<>("configured-lambda", "lambda-orders",
						Order.class, (job) -> this.received.add("lambda " + job.payload().number())));
			};
		}

		@DelayedListener(id = "validated", topic = "validated-orders", maxAttempts = "4")
		void on(@Validated Order order, Tenant tenant) {
			this.received.add(tenant.name() + " " + order.number());
		}

	}

	@Test
	void aConfigurerRegistersLambdasAndGivesListenerMethodsItsValidatorAndArgumentResolvers() {
		ConfigurableApplicationContext context = this.apps.run(ConfiguredListeners.class, "delayqueue.buckets=1");
		DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
		List<String> received = context.getBean(ConfiguredListeners.class).received;
		template.schedule("lambda-orders", "1", new Order("C-1", 1), Duration.ZERO);
		template.schedule("validated-orders", "2", new Order("C-2", 2), Duration.ZERO);
		template.schedule("validated-orders", "free", new Order("C-3", 0), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(received).containsExactlyInAnyOrder("lambda C-1", "tenant-of-2 C-2"));
		// an invalid payload is the same on every attempt: dead at once
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(template.find("validated-orders", "free")).map(JobInfo::state)
				.contains(JobState.DEAD));
		JobInfo invalid = template.find("validated-orders", "free").orElseThrow();
		assertThat(invalid.attempt()).isEqualTo(1);
		assertThat(invalid.lastError()).contains("cents must be positive");
		assertThat(received).hasSize(2);
		assertInvariant();
	}

	private void assertInvariant() {
		QueueInvariant.assertHolds(RedisTestServers.shared(), this.apps.namespace, 1);
	}

}
