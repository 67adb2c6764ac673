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

	/**
	 * Creates the extension.
	 * @param delegate the endpoint it answers for
	 */
	public DelayQueueEndpointWebExtension(DelayQueueEndpoint delegate) {
		this.delegate = delegate;
	}

	/**
	 * See {@link DelayQueueEndpoint#topic}; 404 for a topic with no jobs and no listener.
	 * @param topic the topic
	 * @param cursor the {@code next} of the page before, or {@code null}
	 * @param limit the most dead jobs on the page, or {@code null}
	 * @return the topic, or the error
	 */
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

	/**
	 * See {@link DelayQueueEndpoint#repair}.
	 * @param action {@code repair}
	 * @param dryRun {@code true} to only count
	 * @return what was (or would be) repaired, or the error
	 */
	@WriteOperation
	public WebEndpointResponse<Object> repair(String action, @Nullable Boolean dryRun) {
		return respond(() -> this.delegate.repair(action, dryRun));
	}

	/**
	 * See {@link DelayQueueEndpoint#act}.
	 * @param topic the topic
	 * @param action {@code replay}, {@code pause} or {@code resume}
	 * @param max the most dead jobs to replay, or {@code null}
	 * @param id the one dead job to replay, or {@code null}
	 * @param listener the one listener to pause or resume, or {@code null}
	 * @return the outcome, or the error
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String topic, String action, @Nullable Integer max,
			@Nullable String id, @Nullable String listener) {
		return respond(() -> this.delegate.act(topic, action, max, id, listener));
	}

	/**
	 * See {@link DelayQueueEndpoint#cancel}; 404 for a job that does not exist.
	 * @param topic the topic
	 * @param id the job id
	 * @return the outcome, or the error
	 */
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
