package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.config.InvalidDelayedListenerException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.util.StringUtils;

/**
 * Analyzes a start-up that failed on a {@code @DelayedListener} that cannot be run: names
 * its bean and method, what is wrong and the fix.
 */
class InvalidDelayedListenerFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDelayedListenerException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidDelayedListenerException cause) {
		return new FailureAnalysis(cause.getListener() + " " + cause.getProblem() + ".",
				StringUtils.capitalize(cause.getFix()) + ".", cause);
	}

}
