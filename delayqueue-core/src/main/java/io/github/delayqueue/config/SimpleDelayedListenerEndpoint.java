package io.github.delayqueue.config;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobHandler;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import io.github.delayqueue.listener.DelayedJobListener;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.messaging.handler.annotation.support.MessageHandlerMethodFactory;
import org.springframework.util.Assert;

/**
 * An endpoint whose listener is a lambda, with its payload type given explicitly; settings
 * left unset take the container factory's. Configure it before registering it.
 *
 * <pre class="code">
 * SimpleDelayedListenerEndpoint&lt;OrderClose&gt; endpoint = new SimpleDelayedListenerEndpoint&lt;&gt;(
 *         "order-close-tenant-7", "order-close-tenant-7", OrderClose.class,
 *         (job) -&gt; orders.close(job.payload().orderId()));
 * endpoint.setConcurrency(4);
 * registry.registerListenerContainer(endpoint, containerFactory);
 * </pre>
 *
 * @param <T> the payload type
 */
public class SimpleDelayedListenerEndpoint<T> implements DelayedListenerEndpoint {

	private final String id;

	private final String topic;

	private final Type payloadType;

	private final DelayedJobListener<T> listener;

	private @Nullable Integer concurrency;

	private @Nullable Duration ttr;

	private @Nullable Integer maxAttempts;

	private @Nullable Boolean autoStartup;

	private List<DelayedJobInterceptor> interceptors = List.of();

	/**
	 * Create an endpoint whose payload is a class.
	 * @param id the container id, unique in the registry
	 * @param topic the topic
	 * @param payloadType the payload's class ({@code byte[]} for the stored bytes)
	 * @param listener the listener
	 */
	public SimpleDelayedListenerEndpoint(String id, String topic, Class<T> payloadType, DelayedJobListener<T> listener) {
		this(id, topic, ParameterizedTypeReference.forType(payloadType), listener);
	}

	/**
	 * Create an endpoint whose payload is a generic type, such as {@code List<Order>}.
	 * @param id the container id, unique in the registry
	 * @param topic the topic
	 * @param payloadType the payload's type
	 * @param listener the listener
	 */
	public SimpleDelayedListenerEndpoint(String id, String topic, ParameterizedTypeReference<T> payloadType,
			DelayedJobListener<T> listener) {
		Assert.hasText(id, "id must not be empty");
		Assert.isTrue(id.strip().equals(id), "id must not start or end with whitespace");
		Type type = (payloadType != null) ? payloadType.getType() : null;
		Assert.notNull(type, "payloadType must not be null");
		Assert.notNull(listener, "listener must not be null");
		this.id = id;
		this.topic = JobConstraints.topic(topic);
		this.payloadType = type;
		this.listener = listener;
	}

	@Override
	public DelayedJobHandler createHandler(MessageHandlerMethodFactory methodFactory, DelayedJobArgumentResolver jobs) {
		return (message) -> {
			DelayedJob<T> job = jobs.resolveJob(message, this.payloadType);
			// read before the listener runs: a payload that cannot be read fails the job
			job.payload();
			this.listener.onJob(job);
		};
	}

	@Override
	public String id() {
		return this.id;
	}

	@Override
	public String topic() {
		return this.topic;
	}

	@Override
	public String describe() {
		return "Listener endpoint '" + this.id + "' (" + this.listener.getClass().getName() + ")";
	}

	@Override
	public @Nullable Integer concurrency() {
		return this.concurrency;
	}

	/** Set how many handlers run at once, 1 to 10,000. */
	public void setConcurrency(int concurrency) {
		this.concurrency = JobConstraints.concurrency(concurrency);
	}

	@Override
	public @Nullable Duration ttr() {
		return this.ttr;
	}

	/** Set the reservation's time-to-run instead of each job's own. */
	public void setTtr(Duration ttr) {
		this.ttr = JobConstraints.ttr(ttr);
	}

	@Override
	public @Nullable Integer maxAttempts() {
		return this.maxAttempts;
	}

	/** Set the attempts per job instead of each job's own, stored with each job reserved. */
	public void setMaxAttempts(int maxAttempts) {
		this.maxAttempts = JobConstraints.maxAttempts(maxAttempts);
	}

	@Override
	public @Nullable Boolean autoStartup() {
		return this.autoStartup;
	}

	/** Set whether the container starts when registered with a running registry (or with the context). */
	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	@Override
	public List<DelayedJobInterceptor> interceptors() {
		return this.interceptors;
	}

	/** Set the endpoint's own interceptors, run after the container factory's. */
	public void setInterceptors(List<DelayedJobInterceptor> interceptors) {
		Assert.noNullElements(interceptors, "interceptors must not contain null");
		this.interceptors = List.copyOf(interceptors);
	}

}
