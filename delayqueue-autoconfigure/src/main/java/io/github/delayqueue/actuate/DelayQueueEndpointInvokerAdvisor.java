package io.github.delayqueue.actuate;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import io.github.delayqueue.actuate.DelayQueueEndpoint.InvalidArgumentException;
import io.github.delayqueue.actuate.DelayQueueEndpoint.NotFoundException;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.NotEnoughReplicasException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.InvocationContext;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.invoke.MissingParametersException;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;
import org.springframework.boot.actuate.endpoint.invoke.ParameterMappingException;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.WebServerNamespace;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * Makes the {@code delayqueue} endpoint refuse bad input: unknown arguments, values that do
 * not convert, missing or {@code null} values, and body or query arguments that name a path
 * selector (checked on Spring MVC only). Over the web a refusal is an
 * {@code application/problem+json} answer (400, 404 for an unknown topic, job or listener,
 * 503 when Redis is unreachable or too few replicas acknowledged a write); over JMX an
 * {@link InvalidEndpointRequestException}.
 */
public class DelayQueueEndpointInvokerAdvisor implements OperationInvokerAdvisor {

	private static final Log logger = LogFactory.getLog(DelayQueueEndpointInvokerAdvisor.class);

	private static final EndpointId ID = EndpointId.of("delayqueue");

	/** The answer when Redis is unreachable: its address stays in the log. */
	static final String UNREACHABLE = "the queue's Redis is unreachable; retry later";

	/** Where Spring MVC keeps a request's path variables ({@code HandlerMapping}). */
	private static final String PATH_VARIABLES = "org.springframework.web.servlet.HandlerMapping.uriTemplateVariables";

	@Override
	public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
			OperationInvoker invoker) {
		if (!ID.equals(endpointId)) {
			return invoker;
		}
		Arguments arguments = Arguments.of(operationType, parameters);
		return (context) -> invoke(context, arguments, invoker);
	}

	private static @Nullable Object invoke(InvocationContext context, Arguments arguments, OperationInvoker invoker) {
		boolean web = context.canResolve(WebServerNamespace.class);
		try {
			arguments.check(context.getArguments(), web ? pathVariables() : null);
			return invoker.invoke(context);
		}
		catch (NotFoundException | InvalidEndpointRequestException | DelayQueueConnectionException
				| NotEnoughReplicasException ex) {
			RuntimeException refusal = (ex instanceof InvalidEndpointRequestException invalid) ? refusal(invalid) : ex;
			if (!web) {
				throw refusal;
			}
			if (refusal instanceof InvalidArgumentException invalid) {
				return problem(HttpStatus.BAD_REQUEST, invalid.getMessage(), invalid.getField());
			}
			if (refusal instanceof NotFoundException) {
				return problem(HttpStatus.NOT_FOUND, refusal.getMessage(), null);
			}
			if (refusal instanceof NotEnoughReplicasException) {
				return problem(HttpStatus.SERVICE_UNAVAILABLE, refusal.getMessage(), null);
			}
			logger.warn("delayqueue endpoint: answered 503, Redis is unreachable: " + ex.getMessage());
			return problem(HttpStatus.SERVICE_UNAVAILABLE, UNREACHABLE, null);
		}
	}

	/** The path variables of the Spring MVC request being served, or {@code null}. */
	@SuppressWarnings("unchecked")
	private static @Nullable Map<String, String> pathVariables() {
		RequestAttributes request = RequestContextHolder.getRequestAttributes();
		return (request != null && request.getAttribute(PATH_VARIABLES,
				RequestAttributes.SCOPE_REQUEST) instanceof Map<?, ?> variables) ? (Map<String, String>) variables : null;
	}

	/** The refusal of a bad argument, naming the field when there is one. */
	private static InvalidArgumentException refusal(InvalidEndpointRequestException ex) {
		if (ex instanceof InvalidArgumentException invalid) {
			return invalid;
		}
		if (ex instanceof ParameterMappingException mapping) {
			OperationParameter parameter = mapping.getParameter();
			return new InvalidArgumentException(parameter.getName(), parameter.getName() + " " + rule(parameter)
					+ ", was " + shown(mapping.getValue()));
		}
		if (ex instanceof MissingParametersException missing) {
			String name = missing.getMissingParameters().iterator().next().getName();
			return new InvalidArgumentException(name, name + " must be given");
		}
		return new InvalidArgumentException(null, Objects.requireNonNullElse(ex.getMessage(), ex.getReason()));
	}

	private static String rule(OperationParameter parameter) {
		Class<?> type = parameter.getType();
		return (type == Integer.class || type == int.class || type == Long.class || type == long.class)
				? "must be a whole number"
				: (type == Boolean.class || type == boolean.class) ? "must be true or false" : "is not valid";
	}

	private static String shown(@Nullable Object value) {
		return (value instanceof List<?> list) ? list.size() + " values " + list : "'" + value + "'";
	}

	private static WebEndpointResponse<ProblemDetail> problem(HttpStatus status, @Nullable String detail,
			@Nullable String field) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status,
				(detail != null) ? detail : status.getReasonPhrase());
		problem.setType(URI.create("about:blank"));
		if (field != null) {
			problem.setProperty("field", field);
		}
		return new WebEndpointResponse<>(problem, status.value(), MediaType.APPLICATION_PROBLEM_JSON);
	}

	/** The arguments an operation takes: path selectors and named body or query values. */
	private record Arguments(String kind, Set<String> selectors, Set<String> named) {

		static Arguments of(OperationType type, OperationParameters parameters) {
			Set<String> selectors = new TreeSet<>();
			Set<String> named = new TreeSet<>();
			for (OperationParameter parameter : parameters) {
				if (parameter.getAnnotation(Selector.class) != null) {
					selectors.add(parameter.getName());
				}
				else if (isValue(parameter.getType())) {
					named.add(parameter.getName());
				}
			}
			return new Arguments((type == OperationType.WRITE) ? "field" : "query parameter", selectors, named);
		}

		private static boolean isValue(Class<?> type) {
			return type == String.class || type == Boolean.class || type == boolean.class
					|| Number.class.isAssignableFrom(type) || type.isPrimitive();
		}

		/** Checks a request's arguments against the path's selectors ({@code null}: unknown). */
		void check(Map<String, @Nullable Object> given, @Nullable Map<String, String> path) {
			for (Map.Entry<String, @Nullable Object> argument : given.entrySet()) {
				String name = argument.getKey();
				if (this.selectors.contains(name)) {
					if (path != null && !Objects.equals(path.get(name), argument.getValue())) {
						throw new InvalidArgumentException(name, name + " is given by the path; a " + this.kind
								+ " cannot name it");
					}
				}
				else if (!this.named.contains(name)) {
					throw new InvalidArgumentException(name, "unknown " + this.kind + " '" + name + "'; "
							+ (this.named.isEmpty() ? "the operation takes none"
									: "the " + this.kind + "s are " + this.named));
				}
				else if (argument.getValue() == null) {
					throw new InvalidArgumentException(name, name + " must not be null; leave it out instead");
				}
			}
		}

	}

}
