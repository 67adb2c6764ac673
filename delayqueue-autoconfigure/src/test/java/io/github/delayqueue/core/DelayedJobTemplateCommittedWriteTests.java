package io.github.delayqueue.core;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.util.Objects;
import java.util.concurrent.CompletionException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A write made once its transaction committed (in another synchronization's
 * {@code afterCommit}) is applied at once, and throws what the queue threw, as it is.
 */
class DelayedJobTemplateCommittedWriteTests {

	@BeforeEach
	void begin() {
		TransactionSynchronizationManager.initSynchronization();
		TransactionSynchronizationManager.setActualTransactionActive(true);
	}

	@AfterEach
	void end() {
		TransactionSynchronizationManager.setActualTransactionActive(false);
		TransactionSynchronizationManager.clearSynchronization();
	}

	@Test
	void aWriteAppliedAtOnceAfterTheCommitThrowsTheQueuesExceptionAsItIs() {
		// a queue that waits for an asynchronous call of its own, and throws what its join threw
		CompletionException thrown = new CompletionException(new IOException("the queue's own call failed"));
		DelayQueueOperations operations = (DelayQueueOperations) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { DelayQueueOperations.class }, (proxy, method, args) -> {
					if (method.getName().equals("cancel")) {
						throw thrown;
					}
					throw new UnsupportedOperationException(method.getName());
				});
		JobPayloadConverter converter = (JobPayloadConverter) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { JobPayloadConverter.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException(method.getName());
				});
		DelayedJobTemplate template = new DelayedJobTemplate(operations, converter);
		try {
			AfterCommitWrites writes = Objects.requireNonNull(AfterCommitWrites.current(template, operations, null));
			// the transaction committed: nothing was held back
			writes.afterCommit();
			assertThatThrownBy(() -> template.cancel("t", "id")).isSameAs(thrown);
		}
		finally {
			template.close();
		}
	}

}
