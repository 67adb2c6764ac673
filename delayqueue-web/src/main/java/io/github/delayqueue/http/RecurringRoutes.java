package io.github.delayqueue.http;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Set;

import io.github.delayqueue.actuate.AuditLog;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.recurring.PutResult;
import io.github.delayqueue.recurring.RecurringAction;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.recurring.RecurringSchedule;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.UriUtils;

import static io.github.delayqueue.http.HttpChecks.audited;
import static io.github.delayqueue.http.HttpChecks.checkQuery;
import static io.github.delayqueue.http.HttpChecks.checked;
import static io.github.delayqueue.http.HttpChecks.given;
import static io.github.delayqueue.http.HttpChecks.headers;
import static io.github.delayqueue.http.HttpChecks.maxAttempts;
import static io.github.delayqueue.http.HttpChecks.refuseBody;
import static io.github.delayqueue.http.HttpChecks.ttr;
import static io.github.delayqueue.http.HttpChecks.who;

/**
 * The recurring-job routes of {@link DelayQueueHttpApi}: put, list, read, pause, resume,
 * trigger and delete. Without recurring jobs (no Redis queue) every route answers 404.
 */
final class RecurringRoutes {

	private final @Nullable RecurringJobs recurringJobs;

	private final JobViews views;

	private final String basePath;

	RecurringRoutes(@Nullable RecurringJobs recurringJobs, JobViews views, String basePath) {
		this.recurringJobs = recurringJobs;
		this.views = views;
		this.basePath = basePath;
	}

	ResponseEntity<JsonNode> put(String name, JobRequests.PutRecurring body,
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
		AuditLog.Entry line = AuditLog.entry(DelayQueueHttpApi.VIA, who(request), "put-recurring").topic(job.getTopic())
			.detail("recurring", name);
		PutResult result = audited(line, () -> checked("body", () -> jobs.put(job)));
		AuditLog.write(line.count((result == PutResult.UNCHANGED) ? 0 : 1).detail("result", result.name()));
		ObjectNode view = this.views.recurring(jobs.find(name).orElseThrow(() -> notFoundRecurring(name)));
		view.put("result", result.name());
		return (result == PutResult.CREATED) ? ResponseEntity.created(URI.create(recurringPath(name))).body(view)
				: ResponseEntity.ok(view);
	}

	ResponseEntity<JsonNode> list(HttpServletRequest request) {
		checkQuery(request, Set.of());
		ObjectNode view = JsonNodeFactory.instance.objectNode();
		ArrayNode items = view.putArray("recurring");
		recurringJobs().list().forEach((info) -> items.add(this.views.recurring(info)));
		return ResponseEntity.ok(view);
	}

	ResponseEntity<JsonNode> get(String name, HttpServletRequest request) {
		checkQuery(request, Set.of());
		checked("name", () -> RecurringJob.name(name));
		return ResponseEntity
			.ok(this.views.recurring(recurringJobs().find(name).orElseThrow(() -> notFoundRecurring(name))));
	}

	ResponseEntity<JsonNode> act(String name, String action,
			HttpServletRequest request) throws IOException {
		checkQuery(request, Set.of());
		refuseBody(request, action + " takes no body");
		RecurringJobs jobs = recurringJobs();
		checked("name", () -> RecurringJob.name(name));
		RecurringAction recurringAction = RecurringAction.named(action)
			.orElseThrow(() -> new HttpApiException(HttpStatus.NOT_FOUND, "action",
					"no route " + action + " for a recurring job: it takes pause, resume and trigger"));
		AuditLog.Entry line = AuditLog.entry(DelayQueueHttpApi.VIA, who(request), action + "-recurring").detail("recurring", name);
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

	ResponseEntity<JsonNode> delete(String name, HttpServletRequest request)
			throws IOException {
		checkQuery(request, Set.of());
		refuseBody(request, "delete takes no body");
		RecurringJobs jobs = recurringJobs();
		checked("name", () -> RecurringJob.name(name));
		AuditLog.Entry line = AuditLog.entry(DelayQueueHttpApi.VIA, who(request), "delete-recurring").detail("recurring", name);
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

}
