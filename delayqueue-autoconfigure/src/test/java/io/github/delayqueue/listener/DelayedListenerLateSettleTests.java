package io.github.delayqueue.listener;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.config.DefaultDelayedListenerContainerFactory;
import io.github.delayqueue.config.MethodDelayedListenerEndpoint;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.JobState;
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
 * A batch whose early settle comes late (here the settler is kept busy by a slow finish of an
 * earlier batch, as a Redis latency spike would): a job of it whose TTR ran out meanwhile is
 * not run (it may be delivered again already) but given back, so that its attempt is not
 * burnt by the TTR expiry and, on its last attempt, it does not die without running.
 */
class DelayedListenerLateSettleTests {

	private static final String TOPIC = "review";

	@RegisterExtension
	final ListenerApps apps = new ListenerApps();

	private final List<DelayedListenerContainer> containers = new ArrayList<>();

	private final DelayedListenerContainerTests.ScriptedListener listener = new DelayedListenerContainerTests.ScriptedListener();

	private ConfigurableApplicationContext context;

	private DelayedJobTemplate template;

	private InterceptedOperations operations;

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
	void stopContainers() {
		this.containers.forEach(DelayedListenerContainer::stop);
	}

	@Test
	void aJobSkippedBecauseItsSettleCameLateIsGivenBackNotLeftToDie() {
		this.operations.intercept("finishAndReserve", (args, invocation) -> {
			Object[] changed = args.clone();
			if (Thread.currentThread().getName().endsWith("-settler")) {
				// the settler finishing an earlier batch meets a slow Redis
				Thread.sleep(1500);
			}
			else if ((int) changed[1] > 0) {
				// batches of two: lead -> [a, b] -> [slow, victim]
				changed[1] = 2;
			}
			return invocation.proceed(changed);
		});
		this.listener.behaviour = (job) -> {
			if (job.id().equals("b")) {
				Thread.sleep(150);
			}
			if (job.id().equals("slow") && job.attempt() == 1) {
				Thread.sleep(1100);
			}
		};
		this.template.job(TOPIC, "lead").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(60)).schedule();
		this.template.job(TOPIC, "a").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(60)).schedule();
		this.template.job(TOPIC, "b").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(60)).schedule();
		this.template.job(TOPIC, "slow").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(1)).schedule();
		this.template.job(TOPIC, "victim").payload("x").delay(Duration.ZERO).ttr(Duration.ofSeconds(1)).schedule();
		start(1);
		await().atMost(Duration.ofSeconds(20)).until(() -> this.template.find(TOPIC, "victim")
			.map((info) -> info.state() == JobState.DEAD)
			.orElse(true) && this.template.find(TOPIC, "slow").map((info) -> info.state() == JobState.DEAD).orElse(true));
		assertThat(this.listener.attempts("victim")).as("the listener ran the victim's only attempt").containsExactly(1);
	}

	private DelayedListenerContainer start(int maxAttempts) {
		DefaultDelayedListenerContainerFactory factory = new DefaultDelayedListenerContainerFactory(
				this.operations.operations(), this.context.getBean(JobPayloadConverter.class));
		factory.setBackOffInitial(Duration.ofMillis(100));
		factory.setBackOffJitter(Duration.ZERO);
		factory.setShutdownTimeout(Duration.ofSeconds(10));
		Method method = ReflectionUtils.findMethod(DelayedListenerContainerTests.ScriptedListener.class, "on",
				DelayedJob.class);
		DelayedListenerContainer container = factory.createContainer(new MethodDelayedListenerEndpoint("review",
				TOPIC, this.listener, method, "scriptedListener", 1, null, maxAttempts, true, null, null, null,
				List.of(), null));
		this.containers.add(container);
		container.start();
		return container;
	}

}
