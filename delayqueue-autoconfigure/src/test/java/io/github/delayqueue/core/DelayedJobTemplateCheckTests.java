package io.github.delayqueue.core;

import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The template has the queue check each job once ({@link DelayQueueProducer#check}) before it
 * holds it back in a transaction or queues it for an asynchronous batch; a job written at once
 * is checked by the queue's write alone.
 */
class DelayedJobTemplateCheckTests {

	private final List<String> checked = Collections.synchronizedList(new ArrayList<>());

	private final List<String> written = Collections.synchronizedList(new ArrayList<>());

	private DelayedJobTemplate template;

	@BeforeEach
	void begin() {
		TransactionSynchronizationManager.initSynchronization();
		TransactionSynchronizationManager.setActualTransactionActive(true);
		DelayQueueOperations operations = (DelayQueueOperations) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueueOperations.class }, (proxy, method, args) -> {
					if (method.getName().equals("check")) {
						ScheduleRequest request = (ScheduleRequest) args[0];
						this.checked.add(request.id());
						if (request.id().equals("big")) {
							throw new IllegalArgumentException("payload must be at most 1 bytes");
						}
						return null;
					}
					if (method.getName().equals("schedule")) {
						this.written.add(((ScheduleRequest) args[0]).id());
						return new ScheduleResult(true, JobState.READY, Instant.EPOCH);
					}
					if (method.getName().equals("scheduleAll")) {
						@SuppressWarnings("unchecked")
						List<ScheduleRequest> requests = (List<ScheduleRequest>) args[0];
						requests.forEach((request) -> this.written.add(request.id()));
						return requests.stream().map((request) -> new ScheduleResult(true, JobState.READY, Instant.EPOCH))
							.toList();
					}
					throw new UnsupportedOperationException(method.getName());
				});
		JobPayloadConverter converter = (JobPayloadConverter) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { JobPayloadConverter.class },
				(proxy, method, args) -> ((String) args[0]).getBytes(StandardCharsets.UTF_8));
		this.template = new DelayedJobTemplate(operations, converter);
	}

	@AfterEach
	void end() {
		this.template.close();
		TransactionSynchronizationManager.setActualTransactionActive(false);
		TransactionSynchronizationManager.clearSynchronization();
	}

	private JobBuilder job(String id) {
		return this.template.job("t", id).payload("p").delay(Duration.ZERO);
	}

	@Test
	void inATransactionEachJobIsCheckedOnce() {
		job("one").schedule();
		this.template.scheduleAll(List.of(job("two"), job("three")));
		job("four").scheduleAsync();
		assertThat(this.checked).containsExactly("one", "two", "three", "four");
		assertThat(this.written).isEmpty();
	}

	@Test
	void outsideATransactionTheQueueChecksWhatItWritesAndTheTemplateDoesNotCheckItFirst() {
		TransactionSynchronizationManager.setActualTransactionActive(false);
		job("one").schedule();
		this.template.scheduleAll(List.of(job("two"), job("three")));
		// the queue's schedule and scheduleAll check what they write (this stand-in does not)
		assertThat(this.checked).isEmpty();
		assertThat(this.written).containsExactly("one", "two", "three");
	}

	@Test
	void anAsynchronousScheduleIsCheckedOnceBeforeItIsQueuedAndARefusedOneFailsAlone() {
		TransactionSynchronizationManager.setActualTransactionActive(false);
		CompletableFuture<ScheduleResult> big = job("big").scheduleAsync();
		CompletableFuture<ScheduleResult> small = job("small").scheduleAsync();
		assertThat(small.join().created()).isTrue();
		assertThatThrownBy(big::join).isInstanceOf(CompletionException.class)
			.cause()
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("payload");
		assertThat(this.checked).containsExactly("big", "small");
		assertThat(this.written).containsExactly("small");
	}

}
