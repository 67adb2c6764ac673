package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;
import org.jspecify.annotations.Nullable;

/**
 * Where a page of jobs ordered by a time ends: the time (its death, its finish; epoch ms) and
 * id of its last job (empty: before the jobs of that time), given out as URL-safe Base64 of
 * {@code <time ms>:<id>}.
 */
record PageCursor(long at, String id) {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	/**
	 * Checks the arguments of a page read and reads its cursor.
	 * @throws IllegalArgumentException when one breaks its rule or the cursor is no page's
	 */
	static @Nullable PageCursor parse(String topic, @Nullable String cursor, int limit, String pages) {
		JobConstraints.topic(topic);
		JobConstraints.max("limit", limit, DelayQueueAdmin.MAX_DEAD_PAGE);
		if (cursor == null) {
			return null;
		}
		try {
			String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
			int colon = text.indexOf(':');
			long at = Long.parseLong(text.substring(0, colon));
			String id = text.substring(colon + 1);
			if (!id.isEmpty()) {
				JobConstraints.id(id);
			}
			if (at < 0) {
				throw new IllegalArgumentException();
			}
			return new PageCursor(at, id);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(
					"cursor must be the 'next' of a page of " + pages + ", was '" + cursor + "'");
		}
	}

	/** The page of the first {@code limit} jobs read, with the cursor after it when more were read. */
	static <P> P page(List<JobInfo> read, int limit, Function<JobInfo, Instant> time,
			BiFunction<List<JobInfo>, @Nullable String, P> page) {
		List<JobInfo> jobs = List.copyOf(read.subList(0, Math.min(read.size(), limit)));
		if (read.size() <= jobs.size()) {
			return page.apply(jobs, null);
		}
		JobInfo last = jobs.get(jobs.size() - 1);
		return page.apply(jobs, text(time.apply(last).toEpochMilli(), last.id()));
	}

	/** The cursor after the job {@code id} of time {@code at}; an empty id: before the jobs of that time. */
	static String text(long at, String id) {
		return ENCODER.encodeToString((at + ":" + id).getBytes(StandardCharsets.UTF_8));
	}

}
