package io.github.delayqueue.core;

import java.lang.reflect.Field;
import java.lang.reflect.Proxy;
import java.time.Duration;
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

	private static ScheduleRequest request(String id) {
		return new ScheduleRequest("t", id, new byte[] { 'p' }, Duration.ofMinutes(5), null, null, null,
				OnDuplicate.KEEP);
	}

}
