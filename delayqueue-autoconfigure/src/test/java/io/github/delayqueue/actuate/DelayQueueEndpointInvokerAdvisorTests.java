package io.github.delayqueue.actuate;

import java.lang.annotation.Annotation;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.github.delayqueue.actuate.DelayQueueEndpoint.InvalidArgumentException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The endpoint's input rules outside the web (JMX): a refusal is an exception naming the
 * field, and other endpoints are left alone.
 */
class DelayQueueEndpointInvokerAdvisorTests {

	private final DelayQueueEndpointInvokerAdvisor advisor = new DelayQueueEndpointInvokerAdvisor();

	private final OperationInvoker target = (context) -> "done";

	private final OperationParameters act = parameters(parameter("topic", String.class, true),
			parameter("action", String.class, false), parameter("max", Integer.class, false),
			parameter("securityContext", SecurityContext.class, false));

	@Test
	void unknownArgumentIsRefusedNamingItAndTheFieldsTheOperationTakes() {
		OperationInvoker invoker = this.advisor.apply(EndpointId.of("delayqueue"), OperationType.WRITE, this.act,
				this.target);
		assertThatExceptionOfType(InvalidArgumentException.class)
			.isThrownBy(() -> invoker.invoke(context(Map.of("topic", "t", "action", "replay", "mx", "3"))))
			.withMessage("unknown field 'mx'; the fields are [action, max]")
			.satisfies((ex) -> assertThat(ex.getField()).isEqualTo("mx"));
		assertThat(invoker.invoke(context(Map.of("topic", "t", "action", "replay", "max", "3")))).isEqualTo("done");
	}

	@Test
	void otherEndpointsAreLeftAlone() {
		assertThat(this.advisor.apply(EndpointId.of("health"), OperationType.WRITE, this.act, this.target))
			.isSameAs(this.target);
	}

	private static InvocationContext context(Map<String, Object> arguments) {
		return new InvocationContext(SecurityContext.NONE, arguments);
	}

	private static OperationParameters parameters(OperationParameter... parameters) {
		return new OperationParameters() {

			@Override
			public int getParameterCount() {
				return parameters.length;
			}

			@Override
			public OperationParameter get(int index) {
				return parameters[index];
			}

			@Override
			public java.util.Iterator<OperationParameter> iterator() {
				return List.of(parameters).iterator();
			}

			@Override
			public Stream<OperationParameter> stream() {
				return Stream.of(parameters);
			}

		};
	}

	private static OperationParameter parameter(String name, Class<?> type, boolean selector) {
		return new OperationParameter() {

			@Override
			public String getName() {
				return name;
			}

			@Override
			public Class<?> getType() {
				return type;
			}

			@Override
			public boolean isMandatory() {
				return false;
			}

			@Override
			@SuppressWarnings("unchecked")
			public <T extends Annotation> T getAnnotation(Class<T> annotation) {
				return (selector && annotation == Selector.class) ? (T) selectorAnnotation() : null;
			}

		};
	}

	private static Selector selectorAnnotation() {
		return new Selector() {

			@Override
			public Class<? extends Annotation> annotationType() {
				return Selector.class;
			}

			@Override
			public Match match() {
				return Match.SINGLE;
			}

		};
	}

}
