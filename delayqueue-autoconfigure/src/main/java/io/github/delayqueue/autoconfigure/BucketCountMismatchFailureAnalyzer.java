package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.BucketCountMismatchException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Analyzes a start-up that the queue refused because {@code delayqueue.buckets} is not the
 * bucket count its namespace was created with.
 */
class BucketCountMismatchFailureAnalyzer extends AbstractFailureAnalyzer<BucketCountMismatchException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, BucketCountMismatchException cause) {
		String namespace = cause.getNamespace();
		if (cause.isChosen()) {
			return new FailureAnalysis("delayqueue.buckets is not set, and when the queue was built it took "
					+ cause.getConfigured() + " (Redis could not be reached, or namespace '" + namespace
					+ "' had no count yet); the namespace was created with a bucket count of " + cause.getPinned() + ".",
					"Start the application again once Redis answers (it then takes " + cause.getPinned()
							+ "), or set delayqueue.buckets=" + cause.getPinned() + ".",
					cause);
		}
		String description = "delayqueue.buckets is " + cause.getConfigured() + ", but namespace '" + namespace
				+ "' was created with a bucket count of " + cause.getPinned() + ". Every instance of a namespace must use the"
				+ " count it was created with: a job's bucket is the CRC-32 of its key modulo the count, so an"
				+ " instance with another count would look for jobs in the wrong buckets (and a lower count would"
				+ " strand the jobs of the higher buckets).";
		String action = "Set delayqueue.buckets=" + cause.getPinned() + ". To move to a count of "
				+ cause.getConfigured() + ", start the instances with it under another delayqueue.namespace while"
				+ " instances with " + cause.getPinned() + " drain namespace '" + namespace
				+ "', then stop them and delete its keys ('{" + namespace
				+ "}:config' last).";
		return new FailureAnalysis(description, action, cause);
	}

}
