package io.github.delayqueue.annotation;

import java.math.BigDecimal;
import java.util.List;

import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.listener.DelayedJobInterceptor;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The reflection that {@code @DelayedListener} methods need in a native image, registered
 * for a bean class as an application processed ahead of time registers it.
 */
class DelayedListenerReflectiveProcessorTests {

	private final RuntimeHints hints = new RuntimeHints();

	@Test
	void listenerMethodsAreInvoked() throws Exception {
		register(Listeners.class);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Listeners.class.getDeclaredMethod("close", OrderClose.class))).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Listeners.class.getDeclaredMethod("notify", DelayedJob.class, int.class)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Listeners.class.getDeclaredMethod("both", Refund.class))).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Listeners.class.getDeclaredMethod("metadataOnly", ReservedJob.class)))
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection()
			.onMethodInvocation(Listeners.class.getDeclaredMethod("notAListener", OrderClose.class)))
			.rejects(this.hints);
	}

	@Test
	void payloadParametersAreBoundWithTheTypesOfTheirProperties() {
		register(Listeners.class);
		assertBound(OrderClose.class, "orderId");
		assertBound(Refund.class, "amount");
		// a property's type is bound too
		assertBound(Item.class, "name");
	}

	@Test
	void theTypeArgumentOfADelayedJobIsItsPayload() {
		register(Listeners.class);
		assertBound(Webhook.class, "url");
		assertThat(RuntimeHintsPredicates.reflection().onType(DelayedJob.class)).rejects(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(ReservedJob.class)).rejects(this.hints);
	}

	@Test
	void interceptorsNamedByAListenerCanBeMade() {
		register(Listeners.class);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(Counting.class)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).accepts(this.hints);
	}

	private void register(Class<?> beanClass) {
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(this.hints, beanClass);
	}

	private void assertBound(Class<? extends Record> type, String component) {
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(type)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(type.getSimpleName())
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, component))
			.as(type.getSimpleName() + "." + component + "()")
			.accepts(this.hints);
	}

	static class Listeners {

		@DelayedListener(topic = "order-close", interceptors = Counting.class)
		void close(OrderClose payload) {
		}

		@DelayedListener(topic = "webhook")
		void notify(DelayedJob<Webhook> job, @Header(DelayQueueHeaders.ATTEMPT) int attempt) {
		}

		@DelayedListener(topic = "refund")
		@DelayedListener(topic = "refund-retry")
		void both(Refund refund) {
		}

		@DelayedListener(topic = "audit")
		void metadataOnly(ReservedJob job) {
		}

		void notAListener(OrderClose payload) {
		}

	}

	record OrderClose(String orderId) {

	}

	record Webhook(String url) {

	}

	record Refund(BigDecimal amount, List<Item> items) {

	}

	record Item(String name) {

	}

	static class Counting implements DelayedJobInterceptor {

	}

}
