package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;

import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.core.JobInfo;

/**
 * Where a page of jobs ordered by a time ends: the time and id of its last job, handed to the
 * caller as an opaque text (URL-safe Base64 of {@code <time ms>:<id>}). A dead list is ordered
 * by time of death, then by the bytes of the job key, in every bucket alike; the finished
 * jobs a topic keeps by finish time, the latest first.
 *
 * @param at the time of the last job of the page (its death, its finish), epoch ms
 * @param id the id of that job
 */
record PageCursor(long at, String id) {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	/**
	 * The cursor after a job.
	 * @param at the job's time (its death, its finish)
	 * @param job the last job of a page
	 * @return the cursor text
	 */
	static String after(Instant at, JobInfo job) {
		String text = at.toEpochMilli() + ":" + job.id();
		return ENCODER.encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Reads a cursor text.
	 * @param cursor the text a page gave out
	 * @param pages what the pages hold, for the message ("dead jobs")
	 * @return the cursor
	 * @throws IllegalArgumentException when it is not a cursor of a page
	 */
	static PageCursor parse(String cursor, String pages) {
		try {
			String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
			int colon = text.indexOf(':');
			long at = Long.parseLong(text.substring(0, colon));
			String id = JobConstraints.id(text.substring(colon + 1));
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

	/**
	 * What orders jobs of the same time, as a sorted set orders them: the bytes of the job key
	 * (the topic is the same for all, so the id's bytes).
	 * @param job a job of a page
	 * @return the bytes to compare unsigned
	 */
	static byte[] orderKey(JobInfo job) {
		return job.id().getBytes(StandardCharsets.UTF_8);
	}

}
