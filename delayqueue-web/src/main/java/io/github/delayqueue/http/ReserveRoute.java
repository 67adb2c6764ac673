package io.github.delayqueue.http;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.ReservedJob;
import jakarta.servlet.http.HttpServletRequest;
import tools.jackson.databind.JsonNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.async.DeferredResult;

import static io.github.delayqueue.http.HttpChecks.checkQuery;
import static io.github.delayqueue.http.HttpChecks.checked;
import static io.github.delayqueue.http.HttpChecks.client;
import static io.github.delayqueue.http.HttpChecks.queryDuration;
import static io.github.delayqueue.http.HttpChecks.refuseBody;

/**
 * The reserve route of {@link DelayQueueHttpApi}: reads {@code max}, {@code wait} and
 * {@code ttr} within the {@link DelayQueueHttpApi.Limits}, reserves at once, and lets a request
 * that found nothing wait through {@link ReserveWaiters}.
 */
final class ReserveRoute {

	private static final Set<String> PARAMETERS = new LinkedHashSet<>(List.of("max", "wait", "ttr"));

	/** How many jobs a reserve request without {@code max} takes. */
	static final int DEFAULT_MAX = 1;

	/** How long a reserve request without {@code wait} waits: it answers at once. */
	static final Duration DEFAULT_WAIT = Duration.ZERO;

	/** What a long-poll may take longer than its wait before the web server gives up on it. */
	private static final Duration ASYNC_MARGIN = Duration.ofSeconds(10);

	private final DelayQueueOperations operations;

	private final ReserveWaiters waiters;

	private final JobViews views;

	private final DelayQueueHttpApi.Limits limits;

	ReserveRoute(DelayQueueOperations operations, ReserveWaiters waiters, JobViews views,
			DelayQueueHttpApi.Limits limits) {
		this.operations = operations;
		this.waiters = waiters;
		this.views = views;
		this.limits = limits;
	}

	DeferredResult<ResponseEntity<JsonNode>> reserve(String topic, HttpServletRequest request) throws IOException {
		Map<String, String> query = checkQuery(request, PARAMETERS);
		refuseBody(request, "reserve takes no body: give max, wait and ttr as query parameters");
		checked("topic", () -> JobConstraints.topic(topic));
		String max = query.get("max");
		String wait = query.get("wait");
		String ttr = query.get("ttr");
		int count = (max != null) ? count(max) : DEFAULT_MAX;
		Duration waitFor = (wait != null) ? waitFor(wait) : DEFAULT_WAIT;
		Duration reservationTtr = (ttr != null)
				? checked("ttr", () -> JobConstraints.ttr(queryDuration("ttr", ttr))) : null;
		DeferredResult<ResponseEntity<JsonNode>> result = new DeferredResult<>(
				waitFor.plus(ASYNC_MARGIN).toMillis());
		List<ReservedJob> jobs = this.operations.reserve(topic, count, reservationTtr);
		if (!jobs.isEmpty() || waitFor.isZero()) {
			result.setResult(ResponseEntity.ok(this.views.reserved(jobs)));
			return result;
		}
		Runnable end;
		try {
			end = this.waiters.await(topic, client(request), count, reservationTtr, waitFor,
					(reserved) -> result.setResult(ResponseEntity.ok(this.views.reserved(reserved))),
					result::setErrorResult);
		}
		catch (ReserveWaiters.WaitRefusedException ex) {
			HttpStatus status = switch (ex.getReason()) {
				case TOO_MANY_TOPICS, TOO_MANY_OF_CLIENT -> HttpStatus.TOO_MANY_REQUESTS;
				case STOPPED, TOO_MANY_WAITING -> HttpStatus.SERVICE_UNAVAILABLE;
			};
			throw new HttpApiException(status, null, ex.getMessage());
		}
		result.onCompletion(end);
		return result;
	}

	private int count(String max) {
		int count;
		try {
			count = Integer.parseInt(max);
		}
		catch (NumberFormatException ex) {
			throw HttpApiException.badRequest("max", "max must be a whole number, was '" + max + "'");
		}
		if (count < 1 || count > this.limits.maxReserve()) {
			throw HttpApiException.badRequest("max", "max must be between 1 and " + this.limits.maxReserve()
					+ " (delayqueue.http.max-reserve), was " + count);
		}
		return count;
	}

	private Duration waitFor(String wait) {
		Duration duration = queryDuration("wait", wait);
		if (duration.isNegative() || duration.compareTo(this.limits.maxWait()) > 0) {
			throw HttpApiException.badRequest("wait", "wait must be between PT0S and " + this.limits.maxWait()
					+ " (delayqueue.http.max-wait), was " + duration);
		}
		return duration;
	}

}
