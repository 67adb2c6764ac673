package io.github.delayqueue.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.actuate.AuditLog;
import io.github.delayqueue.actuate.ProblemJsonExceptionResolver;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.NotEnoughReplicasException;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.RescheduleResult;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.core.WaitingJobPage;
import io.github.delayqueue.recurring.RecurringJobs;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.util.Assert;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.util.UriUtils;

import static io.github.delayqueue.http.HttpChecks.audited;
import static io.github.delayqueue.http.HttpChecks.checkJob;
import static io.github.delayqueue.http.HttpChecks.checkQuery;
import static io.github.delayqueue.http.HttpChecks.checked;
import static io.github.delayqueue.http.HttpChecks.delay;
import static io.github.delayqueue.http.HttpChecks.dueAt;
import static io.github.delayqueue.http.HttpChecks.fieldOf;
import static io.github.delayqueue.http.HttpChecks.given;
import static io.github.delayqueue.http.HttpChecks.headers;
import static io.github.delayqueue.http.HttpChecks.maxAttempts;
import static io.github.delayqueue.http.HttpChecks.priority;
import static io.github.delayqueue.http.HttpChecks.refuseBody;
import static io.github.delayqueue.http.HttpChecks.reservation;
import static io.github.delayqueue.http.HttpChecks.retryIn;
import static io.github.delayqueue.http.HttpChecks.ttr;
import static io.github.delayqueue.http.HttpChecks.who;

/**
 * The JSON-over-HTTP job API, for services that are not written in Java: add, reserve
 * (long-polling), finish, fail, touch, cancel, run now and read jobs, under
 * {@code delayqueue.http.base-path} ({@code /delayqueue} by default). Every route calls
 * {@link DelayQueueOperations} (a touch without a TTR reads the job's first), so the semantics
 * are the Java API's: a job added over HTTP reaches a {@code @DelayedListener}, and a job
 * scheduled with {@code DelayedJobTemplate} can be reserved over HTTP.
 *
 * <p>
 * Bad input is a 400 {@code application/problem+json} answer whose {@code field} names the
 * field at fault; nothing is changed then. A stale token is a 409, a Redis outage a 503 with
 * a generic text (the driver's message, which names the server, is logged instead), a wait on
 * more topics than {@code delayqueue.http.max-topics} a 429. The routes are described in
 * {@code openapi.yaml}, served at {@code {base-path}/openapi.yaml}.
 * Bodies are read by {@link JobRequestConverter}, which must be one of Spring MVC's message
 * converters; refusals before a route is found are written by
 * {@link ProblemJsonExceptionResolver}.
 */
@RestController
@RequestMapping("${delayqueue.http.base-path:/delayqueue}")
public class DelayQueueHttpApi {

	private static final Log logger = LogFactory.getLog(DelayQueueHttpApi.class);

	/** How the audit log names writes through this API. */
	static final String VIA = "http-api";

	/** The answer to a request that found Redis unreachable: nothing of the driver's message. */
	static final String UNREACHABLE = "the queue's Redis is unreachable; retry later";

	/** How often a Redis outage is logged at WARN. */
	private static final Duration UNREACHABLE_WARNING_INTERVAL = Duration.ofSeconds(10);

	private final DelayQueueOperations operations;

	private final JobViews views;

	private final ReserveRoute reserve;

	private final String basePath;

	private final RecurringRoutes recurring;

	private final AtomicLong lastUnreachableWarning = new AtomicLong(
			System.nanoTime() - UNREACHABLE_WARNING_INTERVAL.toNanos());

	private final AtomicLong unreachableSinceWarning = new AtomicLong();

	/**
	 * Creates the API.
	 * @param operations the queue
	 * @param waiters the long-polling reserve requests
	 * @param mapper the mapper that reads stored payloads for the answers
	 * @param limits the limits of requests
	 * @param basePath the path the API is served under (for {@code Location} headers and the
	 * OpenAPI description)
	 * @param recurringJobs the namespace's recurring jobs, or {@code null} when there are none
	 * (the recurring routes then answer 404)
	 */
	public DelayQueueHttpApi(DelayQueueOperations operations, ReserveWaiters waiters, JsonMapper mapper, Limits limits,
			String basePath, @Nullable RecurringJobs recurringJobs) {
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(waiters, "waiters must not be null");
		Assert.notNull(mapper, "mapper must not be null");
		Assert.notNull(limits, "limits must not be null");
		this.operations = operations;
		this.views = new JobViews(mapper);
		this.reserve = new ReserveRoute(operations, waiters, this.views, limits);
		this.recurring = new RecurringRoutes(recurringJobs, this.views, basePath);
		this.basePath = basePath;
	}

	@PostMapping(path = "/jobs", consumes = MediaType.APPLICATION_JSON_VALUE,
			produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> add(@RequestBody JobRequests.Add body, HttpServletRequest request) {
		checkQuery(request, Set.of());
		String topic = checked("topic", () -> JobConstraints.topic(given("topic", body.topic())));
		String id = checked("id", () -> JobConstraints.id(given("id", body.id())));
		Duration delay = checked("delay", () -> delay(body.delay()));
		Instant dueAt = checked("dueAt", () -> dueAt(body.dueAt()));
		if ((delay == null) == (dueAt == null)) {
			throw HttpApiException.badRequest((delay == null) ? "delay" : "dueAt",
					"exactly one of delay and dueAt must be given");
		}
		Duration ttr = checked("ttr", () -> ttr(body.ttr()));
		Integer maxAttempts = checked("maxAttempts", () -> maxAttempts(body.maxAttempts()));
		OnDuplicate onDuplicate = (body.onDuplicate() != null) ? body.onDuplicate() : OnDuplicate.KEEP;
		Map<String, String> headers = headers(body.headers());
		Integer priority = checked("priority", () -> priority(body.priority()));
		byte[] payload = given("body", body.body()).bytes();
		ScheduleResult result = this.operations.schedule(
				new ScheduleRequest(topic, id, payload, delay, dueAt, ttr, maxAttempts, onDuplicate, headers, priority));
		JsonNode view = this.views.scheduled(topic, id, result);
		if (!result.created()) {
			return ResponseEntity.ok(view);
		}
		return ResponseEntity.created(URI.create(jobPath(topic, id))).body(view);
	}

	@PostMapping(path = "/topics/{topic}/reserve", produces = MediaType.APPLICATION_JSON_VALUE)
	DeferredResult<ResponseEntity<JsonNode>> reserve(@PathVariable("topic") String topic, HttpServletRequest request)
			throws IOException {
		return this.reserve.reserve(topic, request);
	}

	@PostMapping(path = "/jobs/{topic}/{id}/finish", consumes = MediaType.APPLICATION_JSON_VALUE,
			produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> finish(@PathVariable("topic") String topic, @PathVariable("id") String id,
			@RequestBody JobRequests.Finish body, HttpServletRequest request) {
		ReservedJob job = reservation(request, topic, id, body.token(), null);
		if (!this.operations.finish(job)) {
			throw stale(job);
		}
		return ResponseEntity.ok(JobViews.outcome(topic, id, "finished", true));
	}

	@PostMapping(path = "/jobs/{topic}/{id}/fail", consumes = MediaType.APPLICATION_JSON_VALUE,
			produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> fail(@PathVariable("topic") String topic, @PathVariable("id") String id,
			@RequestBody JobRequests.Fail body, HttpServletRequest request) {
		ReservedJob job = reservation(request, topic, id, body.token(), null);
		Duration retryIn = checked("retryIn", () -> retryIn(body.retryIn()));
		boolean dead = Boolean.TRUE.equals(body.dead());
		if ((retryIn != null) == dead) {
			throw HttpApiException.badRequest(dead ? "dead" : "retryIn", "exactly one of retryIn and dead=true must be given");
		}
		String text = (body.error() != null) ? body.error() : "failed by an HTTP client";
		FailResult outcome = dead ? this.operations.kill(job, text) : this.operations.fail(job, retryIn, text);
		if (outcome == FailResult.STALE) {
			throw stale(job);
		}
		return ResponseEntity.ok(JobViews.outcome(topic, id, "result", outcome.name()));
	}

	@PostMapping(path = "/jobs/{topic}/{id}/touch", consumes = MediaType.APPLICATION_JSON_VALUE,
			produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> touch(@PathVariable("topic") String topic, @PathVariable("id") String id,
			@RequestBody JobRequests.Touch body, HttpServletRequest request) {
		Duration ttr = checked("ttr", () -> ttr(body.ttr()));
		ReservedJob job = reservation(request, topic, id, body.token(), ttr);
		if (ttr == null) {
			// the job's own TTR: a reservation made with another one is extended by the job's
			Optional<JobInfo> info = this.operations.find(topic, id);
			if (info.isEmpty()) {
				throw stale(job);
			}
			job = ReservedJob.of(topic, id, job.token(), info.get().ttr());
		}
		ReservedJob held = job;
		Instant until = this.operations.touch(held, null).orElseThrow(() -> stale(held));
		return ResponseEntity.ok(JobViews.outcome(topic, id, "reservedUntil", until));
	}

	@DeleteMapping(path = "/jobs/{topic}/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> cancel(@PathVariable("topic") String topic, @PathVariable("id") String id,
			HttpServletRequest request) throws IOException {
		AuditLog.Entry line = bodilessJobWrite(request, "cancel", topic, id);
		boolean cancelled = audited(line, () -> this.operations.cancel(topic, id));
		AuditLog.write(line.count(cancelled ? 1 : 0));
		if (!cancelled) {
			throw notFound(topic, id);
		}
		return ResponseEntity.ok(JobViews.outcome(topic, id, "cancelled", true));
	}

	/** Makes a DELAYED job due now; a READY job is due already and is left as it is. */
	@PostMapping(path = "/jobs/{topic}/{id}/run", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> run(@PathVariable("topic") String topic, @PathVariable("id") String id,
			HttpServletRequest request) throws IOException {
		AuditLog.Entry line = bodilessJobWrite(request, "run", topic, id);
		// null: a READY job, left as it is
		RescheduleResult result = audited(line, () -> this.operations.runNow(topic, id).orElse(null));
		AuditLog.write(line.count((result == RescheduleResult.RESCHEDULED) ? 1 : 0));
		if (result == RescheduleResult.NOT_FOUND) {
			throw notFound(topic, id);
		}
		if (result == RescheduleResult.NOT_WAITING) {
			throw HttpApiException.badRequest("id", "job " + id + " of topic " + topic
					+ " is RESERVED or DEAD: only a waiting job (DELAYED or READY) runs now");
		}
		return ResponseEntity.ok(JobViews.outcome(topic, id, "rescheduled", result == RescheduleResult.RESCHEDULED));
	}

	/** Checks a write on one job that takes no query and no body; returns its audit line. */
	private AuditLog.Entry bodilessJobWrite(HttpServletRequest request, String action, String topic, String id)
			throws IOException {
		checkQuery(request, Set.of());
		refuseBody(request, action + " takes no body");
		checkJob(topic, id);
		return AuditLog.entry(VIA, who(request), action).topic(topic).ids(List.of(id));
	}

	@GetMapping(path = "/jobs/{topic}/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> get(@PathVariable("topic") String topic, @PathVariable("id") String id,
			HttpServletRequest request) {
		checkQuery(request, Set.of());
		checkJob(topic, id);
		JobInfo job = this.operations.find(topic, id).orElseThrow(() -> notFound(topic, id));
		return ResponseEntity.ok(this.views.job(job));
	}

	@GetMapping(path = "/topics/{topic}/jobs", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> waiting(@PathVariable("topic") String topic, HttpServletRequest request) {
		Map<String, String> query = checkQuery(request, Set.of("state", "cursor", "limit"));
		checked("topic", () -> JobConstraints.topic(topic));
		String state = given("state", query.get("state"));
		JobState waiting = checked("state", () -> JobConstraints.waitingState(state));
		String limit = query.getOrDefault("limit", "20");
		int size = checked("limit", () -> {
			if (!limit.matches("\\d{1,9}")) {
				throw new IllegalArgumentException("limit must be a whole number, was '" + limit + "'");
			}
			return JobConstraints.max("limit", Integer.parseInt(limit), DelayQueueOperations.MAX_DEAD_PAGE);
		});
		WaitingJobPage page = checked("cursor",
				() -> this.operations.waitingJobs(topic, waiting, query.get("cursor"), size, true));
		return ResponseEntity.ok(this.views.page(topic, waiting, page));
	}

	@PutMapping(path = "/recurring/{name}", consumes = MediaType.APPLICATION_JSON_VALUE,
			produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> putRecurring(@PathVariable("name") String name, @RequestBody JobRequests.PutRecurring body,
			HttpServletRequest request) {
		return this.recurring.put(name, body, request);
	}

	@GetMapping(path = "/recurring", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> listRecurring(HttpServletRequest request) {
		return this.recurring.list(request);
	}

	@GetMapping(path = "/recurring/{name}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> getRecurring(@PathVariable("name") String name, HttpServletRequest request) {
		return this.recurring.get(name, request);
	}

	@PostMapping(path = "/recurring/{name}/{action}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> actOnRecurring(@PathVariable("name") String name, @PathVariable("action") String action,
			HttpServletRequest request) throws IOException {
		return this.recurring.act(name, action, request);
	}

	@DeleteMapping(path = "/recurring/{name}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> deleteRecurring(@PathVariable("name") String name, HttpServletRequest request)
			throws IOException {
		return this.recurring.delete(name, request);
	}

	@GetMapping(path = "/openapi.yaml", produces = "application/yaml")
	ResponseEntity<String> openApi() throws IOException {
		try (InputStream in = DelayQueueHttpApi.class.getResourceAsStream("openapi.yaml")) {
			Assert.state(in != null, "openapi.yaml is missing from the jar");
			String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return ResponseEntity.ok(text.replace("/delayqueue", this.basePath));
		}
	}

	/** A refusal once the route is known, written as every problem of the API is. */
	@ExceptionHandler
	void refused(ErrorResponseException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		ProblemJsonExceptionResolver.write(ex, request, response);
	}

	/** A request without a body on a route that reads one. */
	@ExceptionHandler
	void unreadable(HttpMessageNotReadableException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		refused(HttpApiException.badRequest(null, "the request body must be a JSON object of the operation's fields"),
				request, response);
	}

	@ExceptionHandler
	void invalid(IllegalArgumentException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		refused(new HttpApiException(HttpStatus.BAD_REQUEST, fieldOf(ex.getMessage()), ex.getMessage()), request,
				response);
	}

	/** A Redis outage: a generic answer (the driver's message names the server), logged. */
	@ExceptionHandler
	void unavailable(DelayQueueConnectionException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		logUnreachable(ex);
		refused(new HttpApiException(HttpStatus.SERVICE_UNAVAILABLE, null, UNREACHABLE), request, response);
	}

	/** A write on the master that too few replicas acknowledged: 503, saying what was written. */
	@ExceptionHandler
	void notReplicated(NotEnoughReplicasException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		refused(new HttpApiException(HttpStatus.SERVICE_UNAVAILABLE, null, ex.getMessage()), request, response);
	}

	/** Logs an outage at WARN at most once per interval, with the 503 answers since. */
	private void logUnreachable(DelayQueueConnectionException ex) {
		long now = System.nanoTime();
		long last = this.lastUnreachableWarning.get();
		boolean warn = now - last >= UNREACHABLE_WARNING_INTERVAL.toNanos()
				&& this.lastUnreachableWarning.compareAndSet(last, now);
		if (warn) {
			long since = this.unreachableSinceWarning.getAndSet(0);
			logger.warn("HTTP job API: answered 503, Redis is unreachable: " + ex.getMessage()
					+ ((since > 0) ? " (" + since + " more 503 answers since the last warning)" : ""));
			return;
		}
		this.unreachableSinceWarning.incrementAndGet();
		if (logger.isDebugEnabled()) {
			logger.debug("HTTP job API: answered 503, Redis is unreachable: " + ex.getMessage());
		}
	}

	private HttpApiException stale(ReservedJob job) {
		return new HttpApiException(HttpStatus.CONFLICT, "token", "token " + job.token() + " of job " + job.id()
				+ " of topic " + job.topic()
				+ " is stale: the job was redelivered after its TTR ran out, or was finished, failed, cancelled or replaced");
	}

	private static HttpApiException notFound(String topic, String id) {
		return new HttpApiException(HttpStatus.NOT_FOUND, null,
				"no job " + id + " in topic " + topic + " (never scheduled, finished or cancelled)");
	}

	private String jobPath(String topic, String id) {
		return this.basePath + "/jobs/" + UriUtils.encodePathSegment(topic, StandardCharsets.UTF_8) + "/"
				+ UriUtils.encodePathSegment(id, StandardCharsets.UTF_8);
	}

	/**
	 * The limits of requests, checked when created; the messages name the properties they
	 * come from.
	 *
	 * @param maxBodyBytes the largest request body, in bytes, that {@link JobRequestConverter}
	 * reads
	 * @param maxReserve the most jobs one reserve request may ask for (1 to
	 * {@value DelayQueueOperations#MAX_RESERVE})
	 * @param maxWait the longest wait of a reserve request
	 */
	public record Limits(long maxBodyBytes, int maxReserve, Duration maxWait) {

		public Limits {
			Assert.isTrue(maxBodyBytes > 0,
					() -> "delayqueue.http.max-body-size must be positive, was " + maxBodyBytes + " bytes");
			Assert.isTrue(maxReserve >= 1 && maxReserve <= DelayQueueOperations.MAX_RESERVE,
					() -> "delayqueue.http.max-reserve must be between 1 and " + DelayQueueOperations.MAX_RESERVE
							+ ", was " + maxReserve);
			Assert.isTrue(maxWait != null && !maxWait.isNegative(),
					() -> "delayqueue.http.max-wait must not be negative, was " + maxWait);
		}

	}

}
