package io.github.delayqueue.core;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.util.ReflectionUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link ScheduleBatcher#close()} racing with submits: a submit that passed its open check
 * before the close (a thread blocked in {@code put} on a full queue, or merely descheduled)
 * queues its request after the writer was shut down. Every such request must fail, none may
 * be left waiting forever.
 */
class ScheduleBatcherCloseTests {

	@Test
	void requestsQueuedAfterTheWriterShutDownAllFailNoneIsLeftWaiting() throws Exception {
		DelayQueueProducer producer = (DelayQueueProducer) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueueProducer.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException(method.getName());
				});
		ScheduleBatcher batcher = new ScheduleBatcher(producer);
		batcher.close();
		// the submits below passed their open check before the close: seen as open, the writer shut down
		Field closed = ReflectionUtils.findField(ScheduleBatcher.class, "closed");
		ReflectionUtils.makeAccessible(closed);
		closed.set(batcher, false);
		CompletableFuture<ScheduleResult> first = batcher.submit(request("first"));
		CompletableFuture<ScheduleResult> second = batcher.submit(request("second"));
		for (CompletableFuture<ScheduleResult> future : java.util.List.of(first, second)) {
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> future.get(5, TimeUnit.SECONDS))
				.satisfies((ex) -> assertThat(ex).isNotInstanceOf(java.util.concurrent.TimeoutException.class));
		}
	}

	// a batch whose write threw an Error: a request queued while it was written is written by a next drain
	@Test
	void aRequestQueuedWhileABatchFailedWithAnErrorIsStillWritten() throws Exception {
		java.util.concurrent.CountDownLatch writing = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
		java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
		DelayQueueProducer producer = (DelayQueueProducer) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueueProducer.class }, (proxy, method, args) -> {
					if (!method.getName().equals("scheduleAll")) {
						throw new UnsupportedOperationException(method.getName());
					}
					if (calls.getAndIncrement() == 0) {
						writing.countDown();
						go.await(5, TimeUnit.SECONDS);
						throw new StackOverflowError();
					}
					java.util.List<?> requests = (java.util.List<?>) args[0];
					return requests.stream().map((request) -> ScheduleResult.AFTER_COMMIT).toList();
				});
		ScheduleBatcher batcher = new ScheduleBatcher(producer);
		try {
			CompletableFuture<ScheduleResult> first = batcher.submit(request("first"));
			assertThat(writing.await(5, TimeUnit.SECONDS)).isTrue();
			CompletableFuture<ScheduleResult> second = batcher.submit(request("second"));
			go.countDown();
			assertThatExceptionOfType(Exception.class).isThrownBy(() -> first.get(5, TimeUnit.SECONDS))
				.withCauseInstanceOf(StackOverflowError.class);
			assertThat(second.get(5, TimeUnit.SECONDS)).isEqualTo(ScheduleResult.AFTER_COMMIT);
		}
		finally {
			batcher.close();
		}
	}

	private static ScheduleRequest request(String id) {
		return new ScheduleRequest("t", id, new byte[] { 'p' }, Duration.ofMinutes(5), null, null, null,
				OnDuplicate.KEEP, Map.of(), null);
	}

}
