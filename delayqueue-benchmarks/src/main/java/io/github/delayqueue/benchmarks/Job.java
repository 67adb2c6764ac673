package io.github.delayqueue.benchmarks;

/**
 * One job a scenario schedules: relative ({@code dueAt == 0}) or absolute.
 *
 * @param topic the topic (the queue name for Redisson)
 * @param id the job id (delayqueue only; Redisson has none)
 * @param seq the job's number for the recorder
 * @param delayMillis the delay when relative
 * @param dueAtMillis the absolute due time, or 0
 * @param payloadBytes the size of the payload's JSON form, or 0 for the usual order payload
 */
record Job(String topic, String id, int seq, long delayMillis, long dueAtMillis, int payloadBytes) {

	static Job in(String topic, String id, int seq, long delayMillis) {
		return new Job(topic, id, seq, delayMillis, 0, 0);
	}

	static Job at(String topic, String id, int seq, long dueAtMillis) {
		return new Job(topic, id, seq, 0, dueAtMillis, 0);
	}

	/**
	 * This job with a payload whose JSON form is {@code bytes} long.
	 */
	Job withPayloadBytes(int bytes) {
		return new Job(this.topic, this.id, this.seq, this.delayMillis, this.dueAtMillis, bytes);
	}

	/**
	 * The payload, with the due time computed now (just before the call that schedules it).
	 */
	BenchPayload payload() {
		long due = (this.dueAtMillis > 0) ? this.dueAtMillis : System.currentTimeMillis() + this.delayMillis;
		return (this.payloadBytes > 0) ? BenchPayload.sized(this.seq, due, this.payloadBytes)
				: BenchPayload.of(this.seq, due);
	}

}
