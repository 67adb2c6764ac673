package io.github.delayqueue.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.aot.hint.annotation.Reflective;
import org.springframework.core.annotation.AliasFor;

/**
 * Marks a bean method as the consumer of a topic's delayed jobs.
 *
 * <pre class="code">
 * &#64;DelayedListener(topic = "order-close", concurrency = "4")
 * void close(OrderClose payload, DelayedJob&lt;OrderClose&gt; job) { ... }
 * </pre>
 *
 * <p>
 * Parameters: at most one payload parameter (any type Jackson can read the JSON into:
 * records, generics such as {@code List<Item>}, {@code String}, {@code byte[]},
 * {@code JsonNode}), and/or a {@link io.github.delayqueue.core.DelayedJob} for the job's
 * metadata and {@code touch()}. Returning normally finishes the job; throwing (an exception,
 * or an {@link Error} such as an {@link AssertionError}) retries it after the back-off until
 * its attempts are used up ({@link #maxAttempts()}), then it goes DEAD (or to the
 * {@link io.github.delayqueue.listener.DelayedJobRecoverer}). A payload that cannot be read
 * into the parameter type, and exceptions listed in {@link #noRetryFor()}, go DEAD at once.
 *
 * <p>
 * String attributes accept {@code ${...}} placeholders.
 *
 * <p>
 * An application processed ahead of time has the reflection its listener methods need in a
 * native image registered: the method, its payload type with the types of its properties,
 * the interceptors it names.
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(DelayedListeners.class)
@Reflective(DelayedListenerReflectiveProcessor.class)
public @interface DelayedListener {

	/**
	 * Alias for {@link #topic()}.
	 * @return the topic
	 */
	@AliasFor("topic")
	String value() default "";

	/**
	 * The topic to consume.
	 * @return the topic
	 */
	@AliasFor("value")
	String topic() default "";

	/**
	 * The id of the container, for the registry (pause, resume, metrics). Default:
	 * {@code <bean name>.<method name>#<topic>}.
	 * @return the id
	 */
	String id() default "";

	/**
	 * How many jobs run at once in this instance. Default: the container factory's
	 * ({@code delayqueue.listener.concurrency}, 1).
	 * @return the concurrency
	 */
	String concurrency() default "";

	/**
	 * Time-to-run of each reservation, as a duration ({@code 30s}, {@code PT5M}). Default:
	 * each job's own TTR (set when it was scheduled).
	 * @return the TTR
	 */
	String ttr() default "";

	/**
	 * Most deliveries before a job is DEAD. Default: each job's own (set when it was
	 * scheduled, {@code delayqueue.default-max-attempts} unless the producer said otherwise).
	 * <p>
	 * When set, it replaces the job's own limit, above or below it, from the delivery to this
	 * listener on: each reservation stores it with the job, so one limit decides everywhere.
	 * The handler's {@code DelayedJob.maxAttempts()} reports it, a failure before it is retried
	 * after the back-off, a failure of the last attempt goes to the recoverer (or DEAD), and a
	 * TTR that runs out on the last attempt makes the job DEAD in Redis. The stored limit stays
	 * with the job until a consumer that sets a limit of its own reserves it.
	 * @return the attempts
	 */
	String maxAttempts() default "";

	/**
	 * At most this many jobs of the topic handed out in any window of the interval, across
	 * every instance ({@code 50/1s}, {@code 100/s}, {@code 600/1m}; see
	 * {@link io.github.delayqueue.core.RateLimit}): enforced in Redis when jobs are reserved,
	 * so the jobs over it stay READY and the consumers wait without polling. It is the topic's
	 * limit in this instance, for every consumer of the topic here; listeners of one topic
	 * with different limits, or a different {@code delayqueue.listener.rate-limit.<topic>},
	 * fail start-up. Applied by the default container factory (a factory of one's own calls
	 * {@code DelayQueueConsumer.limitRate} itself). Default: the property's limit, or none.
	 * @return the limit
	 */
	String rateLimit() default "";

	/**
	 * Whether the container starts with the application context.
	 * @return {@code "true"} or {@code "false"}
	 */
	String autoStartup() default "";

	/**
	 * First retry interval ({@code 1s}). Default: the container factory's.
	 * @return the interval
	 */
	String backOffInitial() default "";

	/**
	 * Factor by which each retry interval grows. Default: the container factory's.
	 * @return the multiplier
	 */
	String backOffMultiplier() default "";

	/**
	 * Longest retry interval. Default: the container factory's.
	 * @return the interval
	 */
	String backOffMax() default "";

	/**
	 * Exceptions (and their subclasses, anywhere in the cause chain) that send a job DEAD at
	 * once instead of retrying it.
	 * @return the exception types
	 */
	Class<? extends Throwable>[] noRetryFor() default {};

	/**
	 * This listener's own {@link io.github.delayqueue.listener.DelayedJobInterceptor}s, run
	 * after the container factory's (every interceptor bean, with the auto-configured factory),
	 * in this order. Each class is instantiated for this listener by the application's bean
	 * factory (constructor injection works); the instance is not a bean, so it runs for this
	 * listener only and no destroy callback is called on it. A class that is also declared as
	 * a bean is refused at start-up (as a bean it runs for every listener already).
	 * @return the interceptor types
	 */
	Class<? extends io.github.delayqueue.listener.DelayedJobInterceptor>[] interceptors() default {};

	/**
	 * Bean name of the {@link io.github.delayqueue.config.DelayedListenerContainerFactory}.
	 * @return the bean name
	 */
	String containerFactory() default "";

}
