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
 * Marks a bean method as the consumer of a topic's delayed jobs: at most one payload
 * parameter and/or a {@link io.github.delayqueue.core.DelayedJob}. Returning finishes the job;
 * throwing retries it after the back-off until its attempts are used up, then it goes DEAD;
 * an unreadable payload and {@link #noRetryFor()} exceptions go DEAD at once. String
 * attributes accept {@code ${...}} placeholders.
 *
 * <pre class="code">
 * &#64;DelayedListener(topic = "order-close", concurrency = "4")
 * void close(OrderClose payload, DelayedJob&lt;OrderClose&gt; job) { ... }
 * </pre>
 */
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(DelayedListeners.class)
@Reflective(DelayedListenerReflectiveProcessor.class)
public @interface DelayedListener {

	/** Alias for {@link #topic()}. */
	@AliasFor("topic")
	String value() default "";

	/** The topic to consume. */
	@AliasFor("value")
	String topic() default "";

	/** The container id; default {@code <bean name>.<method name>#<topic>}. */
	String id() default "";

	/** How many jobs run at once in this instance; default the container factory's. */
	String concurrency() default "";

	/** Time-to-run of each reservation ({@code 30s}, {@code PT5M}); default each job's own. */
	String ttr() default "";

	/**
	 * Most deliveries before a job is DEAD, stored with each job this listener reserves;
	 * default each job's own.
	 * @return the attempts
	 */
	String maxAttempts() default "";

	/**
	 * The topic's {@link io.github.delayqueue.core.RateLimit} across every instance
	 * ({@code 50/1s}, {@code 600/1m}); a different limit for the same topic fails start-up.
	 * Default: {@code delayqueue.listener.rate-limit.<topic>}, or none.
	 * @return the limit
	 */
	String rateLimit() default "";

	/**
	 * Whether the container starts with the application context.
	 * @return {@code "true"} or {@code "false"}
	 */
	String autoStartup() default "";

	/** First retry interval ({@code 1s}). Default: the container factory's. */
	String backOffInitial() default "";

	/** Factor by which each retry interval grows. Default: the container factory's. */
	String backOffMultiplier() default "";

	/** Longest retry interval. Default: the container factory's. */
	String backOffMax() default "";

	/** Exceptions (subclasses too, anywhere in the cause chain) that send a job DEAD at once. */
	Class<? extends Throwable>[] noRetryFor() default {};

	/**
	 * This listener's own {@link io.github.delayqueue.listener.DelayedJobInterceptor}s, run in
	 * this order after the factory's; each is created for this listener (not a bean; a class
	 * declared as a bean is refused).
	 * @return the interceptor types
	 */
	Class<? extends io.github.delayqueue.listener.DelayedJobInterceptor>[] interceptors() default {};

	/** Bean name of the {@link io.github.delayqueue.config.DelayedListenerContainerFactory}. */
	String containerFactory() default "";

}
