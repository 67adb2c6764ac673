package io.github.delayqueue.redis;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import io.github.delayqueue.core.JobInfo;

/**
 * Where a page of dead jobs ends: the time of death and id of its last job, handed to the
 * caller as an opaque text (URL-safe Base64 of {@code <died at ms>:<id>}). A dead list is
 * ordered by time of death, then by the bytes of the job key, in every bucket alike.
 *
 * @param diedAt the time of death of the last job of the page, epoch ms
 * @param id the id of that job
 */
record DeadJobCursor(long diedAt, String id) {

	private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

	/**
	 * The cursor after a job.
	 * @param job the last job of a page
	 * @return the cursor text
	 */
	static String after(JobInfo job) {
		String text = job.diedAt().toEpochMilli() + ":" + job.id();
		return ENCODER.encodeToString(text.getBytes(StandardCharsets.UTF_8));
	}

	/**
	 * Reads a cursor text.
	 * @param cursor the text a page gave out
	 * @return the cursor
	 * @throws IllegalArgumentException when it is not a cursor of a page
	 */
	static DeadJobCursor parse(String cursor) {
		try {
			String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
			int colon = text.indexOf(':');
			long diedAt = Long.parseLong(text.substring(0, colon));
			String id = text.substring(colon + 1);
			if (diedAt < 0 || id.isEmpty()) {
				throw new IllegalArgumentException();
			}
			return new DeadJobCursor(diedAt, id);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(
					"cursor must be the 'next' of a page of dead jobs, was '" + cursor + "'");
		}
	}

	/**
	 * What orders jobs that died at the same time, as a dead list orders them: the bytes of
	 * the job key (the topic is the same for all, so the id's bytes).
	 * @param job a dead job
	 * @return the bytes to compare unsigned
	 */
	static byte[] orderKey(JobInfo job) {
		return job.id().getBytes(StandardCharsets.UTF_8);
	}

}
