package io.github.delayqueue.http;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.github.delayqueue.actuate.AuditLog;
import io.github.delayqueue.actuate.ProblemJsonExceptionResolver;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.FailResult;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.listener.DelayQueueHeaders;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringAction;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.recurring.RecurringSchedule;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
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
import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

/**
 * The JSON-over-HTTP job API, for services that are not written in Java: add, reserve
 * (long-polling), finish, fail, touch, cancel and read jobs, under
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
 *
 * <p>
 * The bodies are read by {@link JobRequestConverter}, which must be one of Spring MVC's
 * message converters (the auto-configuration adds it); the refusals of the routes are
 * answered by the {@code @ExceptionHandler} methods of this controller, and Spring MVC's own
 * before a route is found (no route, a method or a content type a route does not take) by
 * {@link ProblemJsonExceptionResolver}.
 */
@RestController
@RequestMapping("${delayqueue.http.base-path:/delayqueue}")
public class DelayQueueHttpApi {

	private static final Log logger = LogFactory.getLog(DelayQueueHttpApi.class);

	/** The fields of the job requests, which a rule of the engine may name in a refusal. */
	private static final Set<String> JOB_FIELDS = Set.of("topic", "id", "delay", "dueAt", "ttr", "maxAttempts", "body",
			"onDuplicate", "headers", "priority", "token", "retryIn", "dead", "error");

	private static final Set<String> RESERVE_PARAMETERS = new LinkedHashSet<>(List.of("max", "wait", "ttr"));

	/** The content types a cross-site HTML form sends without a CORS pre-flight. */
	private static final List<MediaType> FORM_TYPES = List.of(MediaType.APPLICATION_FORM_URLENCODED,
			MediaType.MULTIPART_FORM_DATA, MediaType.TEXT_PLAIN);

	/** How the audit log names writes through this API. */
	static final String VIA = "http-api";

	/** The answer to a request that found Redis unreachable: nothing of the driver's message. */
	static final String UNREACHABLE = "the queue's Redis is unreachable; retry later";

	/** How often a Redis outage is logged at WARN. */
	private static final Duration UNREACHABLE_WARNING_INTERVAL = Duration.ofSeconds(10);

	/** How many jobs a reserve request without {@code max} takes. */
	static final int DEFAULT_MAX = 1;

	/** How long a reserve request without {@code wait} waits: it answers at once. */
	static final Duration DEFAULT_WAIT = Duration.ZERO;

	/** What a long-poll may take longer than its wait before the web server gives up on it. */
	private static final Duration ASYNC_MARGIN = Duration.ofSeconds(10);

	private final DelayQueueOperations operations;

	private final ReserveWaiters waiters;

	private final JobViews views;

	private final Limits limits;

	private final String basePath;

	private final @Nullable RecurringJobs recurringJobs;

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
	 */
	public DelayQueueHttpApi(DelayQueueOperations operations, ReserveWaiters waiters, JsonMapper mapper, Limits limits,
			String basePath) {
		this(operations, waiters, mapper, limits, basePath, null);
	}

	/**
	 * Creates the API with the routes of recurring jobs.
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
		this.recurringJobs = recurringJobs;
		Assert.notNull(operations, "operations must not be null");
		Assert.notNull(waiters, "waiters must not be null");
		Assert.notNull(mapper, "mapper must not be null");
		Assert.notNull(limits, "limits must not be null");
		this.operations = operations;
		this.waiters = waiters;
		this.views = new JobViews(mapper);
		this.limits = limits;
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
		Map<String, String> query = checkQuery(request, RESERVE_PARAMETERS);
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
		checkQuery(request, Set.of());
		refuseBody(request, "cancel takes no body");
		checkJob(topic, id);
		AuditLog.Entry line = AuditLog.entry(VIA, who(request), "cancel").topic(topic).ids(List.of(id));
		boolean cancelled;
		try {
			cancelled = this.operations.cancel(topic, id);
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(line.failed(ex));
			throw ex;
		}
		AuditLog.write(line.count(cancelled ? 1 : 0));
		if (!cancelled) {
			throw notFound(topic, id);
		}
		return ResponseEntity.ok(JobViews.outcome(topic, id, "cancelled", true));
	}

	@GetMapping(path = "/jobs/{topic}/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> get(@PathVariable("topic") String topic, @PathVariable("id") String id,
			HttpServletRequest request) {
		checkQuery(request, Set.of());
		checkJob(topic, id);
		JobInfo job = this.operations.find(topic, id).orElseThrow(() -> notFound(topic, id));
		return ResponseEntity.ok(this.views.job(job));
	}

	@PutMapping(path = "/recurring/{name}", consumes = MediaType.APPLICATION_JSON_VALUE,
			produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> putRecurring(@PathVariable("name") String name, @RequestBody JobRequests.PutRecurring body,
			HttpServletRequest request) {
		checkQuery(request, Set.of());
		RecurringJobs jobs = recurringJobs();
		checked("name", () -> RecurringJob.name(name));
		RecurringJob.Builder builder = RecurringJob.builder(name)
			.topic(checked("topic", () -> JobConstraints.topic(given("topic", body.topic()))));
		String cron = body.cron();
		Duration every = body.every();
		Duration fixedDelay = body.fixedDelay();
		int schedules = ((cron != null) ? 1 : 0) + ((every != null) ? 1 : 0) + ((fixedDelay != null) ? 1 : 0);
		if (schedules != 1) {
			// none: name the first kind; several: the one given besides the first
			String field = (schedules == 0) ? "cron" : (cron != null && every != null) ? "every" : "fixedDelay";
			throw HttpApiException.badRequest(field, "exactly one of cron, every and fixedDelay must be given");
		}
		if (cron != null) {
			String zoneId = body.zone();
			ZoneId zone = checked("zone", () -> RecurringSchedule.zone((zoneId != null) ? zoneId : "UTC"));
			RecurringSchedule schedule = checked("cron", () -> RecurringSchedule.cron(cron, zone));
			if (schedule.next(Instant.now()) == null) {
				throw HttpApiException.badRequest("cron", "cron '" + cron + "' has no tick after now");
			}
			builder.schedule(schedule);
		}
		else {
			if (body.zone() != null) {
				throw HttpApiException.badRequest("zone", "zone applies to cron only");
			}
			builder.schedule((every != null) ? checked("every", () -> RecurringSchedule.every(every))
					: checked("fixedDelay", () -> RecurringSchedule.fixedDelay(fixedDelay)));
		}
		builder.headers(headers(body.headers()));
		builder.payload((body.body() != null) ? body.body().bytes() : new byte[0]);
		Duration ttr = checked("ttr", () -> ttr(body.ttr()));
		if (ttr != null) {
			builder.ttr(ttr);
		}
		Integer maxAttempts = checked("maxAttempts", () -> maxAttempts(body.maxAttempts()));
		if (maxAttempts != null) {
			builder.maxAttempts(maxAttempts);
		}
		if (body.misfire() != null) {
			builder.misfirePolicy(body.misfire());
		}
		if (body.overlap() != null) {
			builder.overlapPolicy(body.overlap());
		}
		Duration threshold = body.misfireThreshold();
		if (threshold != null) {
			builder.misfireThreshold(
					checked("misfireThreshold", () -> JobConstraints.positive("misfireThreshold", threshold, Duration.ofDays(1))));
		}
		Integer catchUp = body.maxCatchUp();
		if (catchUp != null) {
			builder.maxCatchUp(
					checked("maxCatchUp", () -> JobConstraints.max("maxCatchUp", catchUp, RecurringJob.MAX_CATCH_UP)));
		}
		RecurringJob job = checked("body", builder::build);
		AuditLog.Entry line = AuditLog.entry(VIA, who(request), "put-recurring").topic(job.getTopic())
			.detail("recurring", name);
		PutResult result = audited(line, () -> checked("body", () -> jobs.put(job)));
		AuditLog.write(line.count((result == PutResult.UNCHANGED) ? 0 : 1).detail("result", result.name()));
		ObjectNode view = this.views.recurring(jobs.find(name).orElseThrow(() -> notFoundRecurring(name)));
		view.put("result", result.name());
		return (result == PutResult.CREATED) ? ResponseEntity.created(URI.create(recurringPath(name))).body(view)
				: ResponseEntity.ok(view);
	}

	@GetMapping(path = "/recurring", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> listRecurring(HttpServletRequest request) {
		checkQuery(request, Set.of());
		ObjectNode view = JsonNodeFactory.instance.objectNode();
		ArrayNode items = view.putArray("recurring");
		recurringJobs().list().forEach((info) -> items.add(this.views.recurring(info)));
		return ResponseEntity.ok(view);
	}

	@GetMapping(path = "/recurring/{name}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> getRecurring(@PathVariable("name") String name, HttpServletRequest request) {
		checkQuery(request, Set.of());
		checked("name", () -> RecurringJob.name(name));
		return ResponseEntity
			.ok(this.views.recurring(recurringJobs().find(name).orElseThrow(() -> notFoundRecurring(name))));
	}

	@PostMapping(path = "/recurring/{name}/{action}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> actOnRecurring(@PathVariable("name") String name, @PathVariable("action") String action,
			HttpServletRequest request) throws IOException {
		checkQuery(request, Set.of());
		refuseBody(request, action + " takes no body");
		RecurringJobs jobs = recurringJobs();
		checked("name", () -> RecurringJob.name(name));
		RecurringAction recurringAction = RecurringAction.named(action)
			.orElseThrow(() -> new HttpApiException(HttpStatus.NOT_FOUND, "action",
					"no route " + action + " for a recurring job: it takes pause, resume and trigger"));
		AuditLog.Entry line = AuditLog.entry(VIA, who(request), action + "-recurring").detail("recurring", name);
		RecurringAction.Result result = audited(line, () -> recurringAction.apply(jobs, name));
		if (result.occurrence() != null) {
			line.detail("occurrence", result.occurrence());
		}
		AuditLog.write(line.count(result.found() ? 1 : 0));
		if (!result.found()) {
			throw notFoundRecurring(name);
		}
		ObjectNode view = JsonNodeFactory.instance.objectNode();
		view.put("name", name);
		view.put("action", action);
		if (result.occurrence() != null) {
			view.put("occurrence", result.occurrence());
		}
		return ResponseEntity.ok(view);
	}

	@DeleteMapping(path = "/recurring/{name}", produces = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<JsonNode> deleteRecurring(@PathVariable("name") String name, HttpServletRequest request)
			throws IOException {
		checkQuery(request, Set.of());
		refuseBody(request, "delete takes no body");
		RecurringJobs jobs = recurringJobs();
		checked("name", () -> RecurringJob.name(name));
		AuditLog.Entry line = AuditLog.entry(VIA, who(request), "delete-recurring").detail("recurring", name);
		boolean deleted = audited(line, () -> jobs.delete(name));
		AuditLog.write(line.count(deleted ? 1 : 0));
		if (!deleted) {
			throw notFoundRecurring(name);
		}
		ObjectNode view = JsonNodeFactory.instance.objectNode();
		view.put("name", name);
		view.put("deleted", true);
		return ResponseEntity.ok(view);
	}

	/**
	 * Runs a write; when it fails, its audit line is written as failed before the failure
	 * goes on (the caller writes the line of a write that succeeded, with what it did).
	 */
	private static <T> T audited(AuditLog.Entry line, Supplier<T> write) {
		try {
			return write.get();
		}
		catch (RuntimeException | Error ex) {
			AuditLog.write(line.failed(ex));
			throw ex;
		}
	}

	private RecurringJobs recurringJobs() {
		if (this.recurringJobs == null) {
			throw new HttpApiException(HttpStatus.NOT_FOUND, null,
					"no recurring jobs here: they need the Redis queue (RedisDelayQueue)");
		}
		return this.recurringJobs;
	}

	private static HttpApiException notFoundRecurring(String name) {
		return new HttpApiException(HttpStatus.NOT_FOUND, null, "no recurring job " + name);
	}

	private String recurringPath(String name) {
		return this.basePath + "/recurring/" + UriUtils.encodePathSegment(name, StandardCharsets.UTF_8);
	}

	@GetMapping(path = "/openapi.yaml", produces = "application/yaml")
	ResponseEntity<String> openApi() throws IOException {
		try (InputStream in = DelayQueueHttpApi.class.getResourceAsStream("openapi.yaml")) {
			Assert.state(in != null, "openapi.yaml is missing from the jar");
			String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			return ResponseEntity.ok(text.replace("/delayqueue", this.basePath));
		}
	}

	/**
	 * A refusal of the API's or of Spring MVC's once the route is known: its problem as it
	 * stands ({@link HttpApiException}s name the field at fault), written as the API writes
	 * every problem, whatever JSON converters the application has.
	 */
	@ExceptionHandler
	void refused(ErrorResponseException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		ProblemJsonExceptionResolver.write(ex, request, response);
	}

	/**
	 * A request without a body on a route that reads one ({@link JobRequestConverter} refuses
	 * the bodies it cannot read with a {@link HttpApiException}).
	 */
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

	/**
	 * A Redis outage: a generic answer, as the driver's message names the server (host,
	 * address, port); the detail goes to the log.
	 */
	@ExceptionHandler
	void unavailable(DelayQueueConnectionException ex, HttpServletRequest request, HttpServletResponse response)
			throws IOException {
		logUnreachable(ex);
		refused(new HttpApiException(HttpStatus.SERVICE_UNAVAILABLE, null, UNREACHABLE), request, response);
	}

	/**
	 * Logs an outage at WARN at most once per {@link #UNREACHABLE_WARNING_INTERVAL}, with how
	 * many requests were answered 503 since; each one at DEBUG.
	 */
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

	/**
	 * Reads a route's query parameters, refusing one that the route does not take (so that a
	 * misspelt option is not silently ignored) and one given twice. Read from the query
	 * string alone: the options of a route are never taken from a form body.
	 * @return the decoded values by name ({@code ""} for a name without a value)
	 */
	private static Map<String, String> checkQuery(HttpServletRequest request, Set<String> parameters) {
		String query = request.getQueryString();
		if (query == null || query.isEmpty()) {
			return Map.of();
		}
		Map<String, String> values = new LinkedHashMap<>();
		UriComponentsBuilder.newInstance().query(query).build().getQueryParams().forEach((raw, given) -> {
			String name = UriUtils.decode(raw, StandardCharsets.UTF_8);
			if (!parameters.contains(name)) {
				throw HttpApiException.badRequest(name, "unknown query parameter '" + name + "'; "
						+ (parameters.isEmpty() ? "this route takes none" : "the parameters are " + parameters));
			}
			if (given.size() != 1 || values.containsKey(name)) {
				throw HttpApiException.badRequest(name, name + " must be given once");
			}
			String value = given.get(0);
			values.put(name, (value != null) ? UriUtils.decode(value, StandardCharsets.UTF_8) : "");
		});
		return values;
	}

	/**
	 * Refuses a request body on a route that takes none, so that options sent in a body
	 * (a form, JSON) are not silently ignored.
	 */
	private static void refuseBody(HttpServletRequest request, String message) throws IOException {
		String contentType = request.getContentType();
		if (contentType != null && isForm(contentType)) {
			throw new HttpApiException(HttpStatus.UNSUPPORTED_MEDIA_TYPE, null, "Content-Type '" + contentType
					+ "' is refused: " + message + ", and a form's content type is what a cross-site page sends");
		}
		long length = request.getContentLengthLong();
		if (length > 0 || (length < 0 && request.getInputStream().read() != -1)) {
			throw new HttpApiException(HttpStatus.BAD_REQUEST, null, message);
		}
	}

	private static boolean isForm(String contentType) {
		try {
			MediaType type = MediaType.parseMediaType(contentType);
			return FORM_TYPES.stream().anyMatch((form) -> form.equalsTypeAndSubtype(type));
		}
		catch (InvalidMediaTypeException ex) {
			return true;
		}
	}

	/**
	 * Who made a request, for the audit log: the principal that the application's security
	 * set on it, else the index of the bearer token it presented, else nobody known.
	 */
	private static @Nullable String who(HttpServletRequest request) {
		Principal principal = request.getUserPrincipal();
		if (principal != null) {
			return principal.getName();
		}
		Object token = request.getAttribute(BearerTokenInterceptor.TOKEN_INDEX_ATTRIBUTE);
		return (token != null) ? "token[" + token + "]" : null;
	}

	/**
	 * Who waits, for the fair share of long-poll slots: the principal or the token, else the
	 * remote address.
	 */
	private static String client(HttpServletRequest request) {
		String who = who(request);
		return (who != null) ? who : "address " + request.getRemoteAddr();
	}

	private static ReservedJob reservation(HttpServletRequest request, String topic, String id, @Nullable Long token,
			@Nullable Duration ttr) {
		checkQuery(request, Set.of());
		checkJob(topic, id);
		return ReservedJob.of(topic, id, given("token", token), ttr);
	}

	/**
	 * A field's value, refused when the request has none.
	 */
	private static <T> T given(String field, @Nullable T value) {
		if (value == null) {
			throw HttpApiException.badRequest(field, field + " must be given");
		}
		return value;
	}

	/**
	 * A duration given as a query parameter, as the bodies take them.
	 */
	private static Duration queryDuration(String name, String text) {
		Duration duration = JobRequests.duration(text);
		if (duration == null) {
			throw HttpApiException.badRequest(name, name + JobRequests.DURATION_RULE + ", was '" + text + "'");
		}
		return duration;
	}

	private static void checkJob(String topic, String id) {
		checked("topic", () -> JobConstraints.topic(topic));
		checked("id", () -> JobConstraints.id(id));
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

	/**
	 * A job's headers from a client: the rules of {@link JobConstraints#headers}, and none of
	 * the queue's own names ({@code delayqueue_*}), which only the library sets.
	 */
	private static Map<String, String> headers(@Nullable Map<String, String> headers) {
		if (headers == null) {
			return Map.of();
		}
		for (String name : headers.keySet()) {
			if (name.startsWith(DelayQueueHeaders.PREFIX)) {
				throw HttpApiException.badRequest("headers", "headers: header name '" + name + "' is reserved: names"
						+ " starting with " + DelayQueueHeaders.PREFIX + " are the queue's own, set by the library only");
			}
		}
		return checked("headers", () -> JobConstraints.headers(headers));
	}

	private static @Nullable Duration delay(@Nullable Duration delay) {
		return (delay != null) ? JobConstraints.delay(delay) : null;
	}

	private static @Nullable Instant dueAt(@Nullable Instant dueAt) {
		return (dueAt != null) ? JobConstraints.dueAt(dueAt) : null;
	}

	private static @Nullable Duration ttr(@Nullable Duration ttr) {
		return (ttr != null) ? JobConstraints.ttr(ttr) : null;
	}

	private static @Nullable Duration retryIn(@Nullable Duration retryIn) {
		return (retryIn != null) ? JobConstraints.backOff("retryIn", retryIn) : null;
	}

	private static @Nullable Integer maxAttempts(@Nullable Integer maxAttempts) {
		return (maxAttempts != null) ? JobConstraints.maxAttempts(maxAttempts) : null;
	}

	private static @Nullable Integer priority(@Nullable Integer priority) {
		return (priority != null) ? JobConstraints.priority(priority) : null;
	}

	/**
	 * Runs a check of one field; its {@link IllegalArgumentException} becomes a 400 naming the
	 * field. The message of a rule of {@link JobConstraints} names the field already.
	 */
	@SuppressWarnings("NullAway") // the rules and parsers it runs throw with a message
	private static <T> T checked(String field, Supplier<T> check) {
		try {
			return check.get();
		}
		catch (IllegalArgumentException ex) {
			String message = ex.getMessage();
			throw HttpApiException.badRequest(field, message.startsWith(field) ? message : field + ": " + message);
		}
	}

	/**
	 * The field a rule of the engine names first in its message; {@code payload} is the
	 * request's {@code body}.
	 */
	private static @Nullable String fieldOf(@Nullable String message) {
		if (message == null) {
			return null;
		}
		int space = message.indexOf(' ');
		String first = (space > 0) ? message.substring(0, space) : message;
		if (first.equals("payload")) {
			return "body";
		}
		return JOB_FIELDS.contains(first) ? first : null;
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
