package io.github.delayqueue.listener;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.MethodDelayedListenerEndpoint;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobPayloadConverter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A container started again while its stop is still under way (the registry stops
 * containers on threads of their own; {@code stop(Runnable)} returns before the old consumer
 * thread is gone): the first run's consumer thread ends with its run, and does not go on
 * reserving jobs beside the new run (which it could only give back, its executor shut down).
 */
class DelayedListenerContainerRestartTests {

	private static final String TOPIC = "restart";

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	private final DelayedListenerContainerTests.ScriptedListener listener = new DelayedListenerContainerTests.ScriptedListener();

	private ConfigurableApplicationContext context;

	private DelayedJobTemplate template;

	private InterceptedOperations operations;

	private DelayedListenerContainer container;

	@Configuration(proxyBeanMethods = false)
	static class NoListeners {

	}

	@BeforeEach
	void startApplication() {
		this.context = this.apps.run(NoListeners.class, "delayqueue.buckets=1");
		this.template = this.context.getBean(DelayedJobTemplate.class);
		this.operations = new InterceptedOperations(this.context.getBean(DelayQueueOperations.class));
	}

	@AfterEach
	void stopContainer() {
		if (this.container != null) {
			this.container.stop();
		}
	}

	@Test
	void restartDuringAStopLeavesNoConsumerThatReservesAndGivesBackJobs() throws Exception {
		AtomicInteger releases = new AtomicInteger();
		this.operations.intercept("release", (args, invocation) -> {
			releases.incrementAndGet();
			return invocation.proceed(args);
		});
		this.listener.behaviour = (job) -> Thread.sleep(100);
		this.container = create();
		this.container.start();
		// the consumer thread waits for work
		Thread.sleep(300);
		Thread stopper = new Thread(this.container::stop, "review-stopper");
		stopper.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !this.container.isRunning());
		// started again before the stop has ended (it waits up to 5 s for the old consumer thread)
		this.container.start();
		stopper.join(30_000);
		assertThat(stopper.isAlive()).isFalse();

		int before = releases.get();
		for (int i = 0; i < 10; i++) {
			this.template.schedule(TOPIC, "job-" + i, "x", Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(20))
			.until(() -> this.template.getOperations().stats().totals().total() == 0);
		for (int i = 0; i < 10; i++) {
			assertThat(this.listener.attempts("job-" + i)).as("job-" + i).containsExactly(1);
		}
		assertThat(releases.get() - before).as("jobs reserved and given back unstarted while the container ran")
			.isLessThan(5);
	}

	private DelayedListenerContainer create() {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(
				this.operations.operations(), this.context.getBean(JobPayloadConverter.class));
		factory.setBackOffInitial(Duration.ofMillis(100));
		factory.setBackOffJitter(Duration.ZERO);
		factory.setShutdownTimeout(Duration.ofSeconds(10));
		Method method = ReflectionUtils.findMethod(DelayedListenerContainerTests.ScriptedListener.class, "on",
				DelayedJob.class);
		return factory.createContainer(new MethodDelayedListenerEndpoint("restart", TOPIC, this.listener, method,
				"restartListener", 1, Duration.ofSeconds(30), null, true, null, null, null, List.of(), null));
	}

}
