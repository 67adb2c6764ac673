package io.github.delayqueue.listener;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;

import io.github.delayqueue.core.DelayedJob;
import org.junit.jupiter.api.Test;

import org.springframework.core.MethodParameter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The payload type a {@code DelayedJob<T>} parameter asks for.
 */
class DelayedJobPayloadTypeTests {

	@Test
	void theTypeIsTheParametersTypeArgument() throws NoSuchMethodException {
		assertThat(DelayedJobArgumentResolver.payloadType(parameter(Listeners.class, "order"), DelayedJob.class))
			.isEqualTo(Order.class);
		Type list = DelayedJobArgumentResolver.payloadType(parameter(Listeners.class, "orders"), DelayedJob.class);
		assertThat(list).isInstanceOf(ParameterizedType.class);
		assertThat(((ParameterizedType) list).getRawType()).isEqualTo(List.class);
		assertThat(((ParameterizedType) list).getActualTypeArguments()).containsExactly(Order.class);
	}

	@Test
	void aRawParameterAsksForAnyType() throws NoSuchMethodException {
		assertThat(DelayedJobArgumentResolver.payloadType(parameter(Listeners.class, "raw"), DelayedJob.class))
			.isEqualTo(Object.class);
	}

	/**
	 * A listener method declared in a generic superclass gets the payload as the class that
	 * the bean's class gives the type variable, not as the variable (which Jackson reads as a
	 * map).
	 */
	@Test
	void aTypeVariableIsTheClassTheBeansClassGivesIt() throws NoSuchMethodException {
		MethodParameter parameter = parameter(Base.class, "handle").withContainingClass(OrderListener.class);
		assertThat(DelayedJobArgumentResolver.payloadType(parameter, DelayedJob.class)).isEqualTo(Order.class);
	}

	private static MethodParameter parameter(Class<?> type, String name) throws NoSuchMethodException {
		return new MethodParameter(type.getMethod(name, DelayedJob.class), 0);
	}

	record Order(String id) {
	}

	static class Listeners {

		public void order(DelayedJob<Order> job) {
		}

		public void orders(DelayedJob<List<Order>> job) {
		}

		@SuppressWarnings("rawtypes")
		public void raw(DelayedJob job) {
		}

	}

	abstract static class Base<T> {

		public void handle(DelayedJob<T> job) {
		}

	}

	static class OrderListener extends Base<Order> {

	}

}
