package io.github.delayqueue.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.JobInfo;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.core.WaitingJobPage;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringSchedule;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

/**
 * The JSON the HTTP job API answers with. Times are ISO-8601 instants and durations, as the
 * requests take them; a payload is {@code body}: the JSON value it holds, or its text when it
 * is not JSON (a Java {@code String} payload), or {@code bodyBase64} for bytes that are not
 * UTF-8 text. A JSON payload is written as stored, byte for byte.
 *
 * <p>
 * Payloads are the stored bytes as the default {@code JacksonJobPayloadConverter} writes them
 * (JSON, or the text of a string): an application's own {@code JobPayloadConverter} is not
 * applied here.
 */
final class JobViews {

	private static final JsonNodeFactory nodes = JsonNodeFactory.instance;

	private final JsonMapper mapper;

	JobViews(JsonMapper mapper) {
		// strict: a text payload such as "1 2" or "true story" is text, not the JSON at its start
		this.mapper = mapper.rebuild().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
	}

	ObjectNode scheduled(String topic, String id, ScheduleResult result) {
		ObjectNode view = nodes.objectNode();
		view.put("topic", topic);
		view.put("id", id);
		view.put("created", result.created());
		// the HTTP API writes through the operations, whose results always have a state
		view.put("state", String.valueOf(result.state()));
		put(view, "dueAt", result.dueAt());
		return view;
	}

	@SuppressWarnings("NullAway") // the jobs come from a reserve, which sets their TTR
	ObjectNode reserved(List<ReservedJob> jobs) {

		ObjectNode view = nodes.objectNode();
		ArrayNode array = view.putArray("jobs");
		for (ReservedJob job : jobs) {
			ObjectNode item = array.addObject();
			item.put("topic", job.topic());
			item.put("id", job.id());
			item.put("token", job.token());
			item.put("attempt", job.attempt());
			item.put("maxAttempts", job.maxAttempts());
			item.put("ttr", job.ttr().toString());
			put(item, "dueAt", job.dueAt());
			put(item, "createdAt", job.createdAt());
			put(item, "deliveredAt", job.deliveredAt());
			put(item, "reservedUntil", job.reservedUntil());
			headers(item, job.headers());
			body(item, job.payload());
		}
		return view;
	}

	ObjectNode job(JobInfo job) {
		ObjectNode view = nodes.objectNode();
		view.put("topic", job.topic());
		view.put("id", job.id());
		view.put("state", job.state().name());
		view.put("priority", job.priority());
		view.put("attempt", job.attempt());
		view.put("maxAttempts", job.maxAttempts());
		view.put("ttr", job.ttr().toString());
		put(view, "dueAt", job.dueAt());
		put(view, "createdAt", job.createdAt());
		put(view, "reservedUntil", job.reservedUntil());
		if (job.reservedBy() != null) {
			view.put("reservedBy", job.reservedBy());
		}
		put(view, "diedAt", job.diedAt());
		put(view, "finishedAt", job.finishedAt());
		if (job.runTime() != null) {
			view.put("runTime", job.runTime().toString());
		}
		if (job.lastError() != null) {
			view.put("lastError", job.lastError());
		}
		headers(view, job.headers());
		if (job.payload() != null) {
			body(view, job.payload());
		}
		return view;
	}

	ObjectNode page(String topic, JobState state, WaitingJobPage page) {
		ObjectNode view = nodes.objectNode();
		view.put("topic", topic);
		view.put("state", state.name());
		ArrayNode jobs = view.putArray("jobs");
		page.jobs().forEach((job) -> jobs.add(job(job)));
		if (page.next() != null) {
			view.put("next", page.next());
		}
		return view;
	}

	ObjectNode recurring(RecurringJobInfo info) {
		RecurringJob job = info.job();
		ObjectNode view = nodes.objectNode();
		view.put("name", info.name());
		view.put("topic", job.getTopic());
		RecurringSchedule schedule = job.getSchedule();
		if (schedule.getPeriod() != null) {
			view.put("every", schedule.getPeriod().toString());
		}
		else if (schedule.getDelay() != null) {
			view.put("fixedDelay", schedule.getDelay().toString());
		}
		else {
			view.put("cron", schedule.getCron());
			view.put("zone", schedule.getZone().getId());
		}
		if (job.getTtr() != null) {
			view.put("ttr", job.getTtr().toString());
		}
		if (job.getMaxAttempts() != null) {
			view.put("maxAttempts", job.getMaxAttempts());
		}
		view.put("misfire", job.getMisfirePolicy().name());
		view.put("misfireThreshold", job.getMisfireThreshold().toString());
		view.put("maxCatchUp", job.getMaxCatchUp());
		view.put("overlap", job.getOverlapPolicy().name());
		view.put("declared", job.isDeclared());
		view.put("paused", info.paused());
		view.put("version", info.version());
		put(view, "nextFireTime", info.nextFireTime());
		view.put("fired", info.fired());
		view.put("skipped", info.skipped());
		view.put("misfired", info.misfired());
		put(view, "lastFireTime", info.lastFireTime());
		if (info.lastOccurrenceId() != null) {
			view.put("lastOccurrence", info.lastOccurrenceId());
			view.put("lastOccurrenceState",
					(info.lastOccurrenceState() != null) ? info.lastOccurrenceState().name() : "GONE");
		}
		headers(view, job.getHeaders());
		body(view, job.getPayload());
		return view;
	}

	private static void headers(ObjectNode view, Map<String, String> headers) {
		if (!headers.isEmpty()) {
			ObjectNode node = view.putObject("headers");
			headers.forEach(node::put);
		}
	}

	static ObjectNode outcome(String topic, String id, String field, Object value) {
		ObjectNode view = nodes.objectNode();
		view.put("topic", topic);
		view.put("id", id);
		if (value instanceof Boolean flag) {
			view.put(field, flag);
		}
		else {
			view.put(field, value.toString());
		}
		return view;
	}

	private static void put(ObjectNode view, String field, @Nullable Instant instant) {
		if (instant != null) {
			view.put(field, instant.toString());
		}
	}

	private void body(ObjectNode view, byte[] payload) {
		if (payload.length > 0) {
			try {
				// checked to be one JSON value, then written as stored: numbers exact
				this.mapper.readTree(payload);
				view.putRawValue("body", new RawValue(new String(payload, StandardCharsets.UTF_8)));
				return;
			}
			catch (JacksonException ex) {
				// not JSON: a text or bytes payload
			}
		}
		try {
			String text = StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(payload))
				.toString();
			view.put("body", text);
		}
		catch (CharacterCodingException ex) {
			view.put("bodyBase64", Base64.getEncoder().encodeToString(payload));
		}
	}

}
