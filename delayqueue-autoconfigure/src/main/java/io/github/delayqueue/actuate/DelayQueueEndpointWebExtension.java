package io.github.delayqueue.actuate;

import java.util.Map;
import java.util.function.Supplier;

import io.github.delayqueue.actuate.DelayQueueEndpoint.NotFoundException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The web face of {@link DelayQueueEndpoint}: 404 with a message for an unknown topic, job
 * or listener, 400 with a message naming the field and the rule for a bad argument.
 */
@EndpointWebExtension(endpoint = DelayQueueEndpoint.class)
public class DelayQueueEndpointWebExtension {

	private final DelayQueueEndpoint delegate;

	public DelayQueueEndpointWebExtension(DelayQueueEndpoint delegate) {
		this.delegate = delegate;
	}

	@ReadOperation
	public WebEndpointResponse<Object> topic(@Selector String topic, @Nullable String cursor,
			@Nullable Integer limit) {
		return respond(() -> {
			Object descriptor = this.delegate.topic(topic, cursor, limit);
			if (descriptor == null) {
				throw NotFoundException.topic(topic);
			}
			return descriptor;
		});
	}

	@WriteOperation
	public WebEndpointResponse<Object> repair(String action, @Nullable Boolean dryRun) {
		return respond(() -> this.delegate.repair(action, dryRun));
	}

	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String topic, String action, @Nullable Integer max,
			@Nullable String id, @Nullable String listener) {
		return respond(() -> this.delegate.act(topic, action, max, id, listener));
	}

	@DeleteOperation
	public WebEndpointResponse<Object> cancel(@Selector String topic, @Selector String id) {
		return respond(() -> this.delegate.cancel(topic, id));
	}

	private static WebEndpointResponse<Object> respond(Supplier<Object> operation) {
		try {
			return new WebEndpointResponse<>(operation.get(), WebEndpointResponse.STATUS_OK);
		}
		catch (NotFoundException ex) {
			return error(ex.getMessage(), WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (InvalidEndpointRequestException ex) {
			return error(ex.getMessage(), WebEndpointResponse.STATUS_BAD_REQUEST);
		}
	}

	private static WebEndpointResponse<Object> error(String message, int status) {
		return new WebEndpointResponse<>(Map.of("status", status, "error", message), status);
	}

}
