package io.github.delayqueue.core;

/**
 * The queue is configured with another bucket count than the one its namespace was created
 * with; thrown when the queue starts, or before its first call to Redis.
 */
public class BucketCountMismatchException extends DelayQueueException {

	private final String namespace;

	private final int configured;

	private final int pinned;

	private final boolean chosen;

	/**
	 * Creates the exception.
	 * @param namespace the namespace
	 * @param configured the bucket count this queue is configured with, or chose
	 * @param pinned the bucket count the namespace was created with
	 * @param chosen whether the queue was built without a count and chose one
	 */
	public BucketCountMismatchException(String namespace, int configured, int pinned, boolean chosen) {
		super(chosen ? "This queue was built without delayqueue.buckets and took " + configured + " (Redis could not"
				+ " be reached, or namespace '" + namespace + "' had no count yet); the namespace was created with a"
				+ " bucket count of " + pinned + ", and every instance of a namespace must use the same count. Restart"
				+ " the application once Redis answers (it then takes " + pinned + "), or set delayqueue.buckets="
				+ pinned + "." : "delayqueue.buckets is " + configured + " but namespace '" + namespace
				+ "' was created with a bucket count of " + pinned + ", and every instance of a namespace must use the"
				+ " same count (a job's bucket is the CRC-32 of its key modulo the count). Set delayqueue.buckets="
				+ pinned + ", or move to the new count: start the new count under another delayqueue.namespace while"
				+ " instances with " + pinned + " drain the old one (then stop them and delete its keys, '{"
				+ namespace + "}:config' last).");
		this.namespace = namespace;
		this.configured = configured;
		this.pinned = pinned;
		this.chosen = chosen;
	}

	/** The namespace. */
	public String getNamespace() {
		return this.namespace;
	}

	/** The bucket count this queue is configured with. */
	public int getConfigured() {
		return this.configured;
	}

	/** The bucket count the namespace was created with. */
	public int getPinned() {
		return this.pinned;
	}

	/** Whether the queue was built without a bucket count and chose one. */
	public boolean isChosen() {
		return this.chosen;
	}

}
