package io.github.delayqueue.actuate;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.QueueStats.TopicStats;
import io.github.delayqueue.core.ReplayResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.boot.actuate.endpoint.SecurityContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * A write through the endpoint that changed jobs and then failed (Redis went away part-way
 * through a replay of all dead jobs, which runs round after round of up to
 * {@link DelayQueueOperations#MAX_REPLAY} jobs) is audited all the same, with what the rounds
 * before the failure did.
 */
class DelayQueueEndpointPartialWriteAuditTests {

	private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

	private final Logger audit = (Logger) LoggerFactory.getLogger(AuditLog.LOGGER_NAME);

	@BeforeEach
	void capture() {
		this.lines.start();
		this.audit.addAppender(this.lines);
	}

	@AfterEach
	void release() {
		this.audit.detachAppender(this.lines);
	}

	@Test
	void aReplayThatFailsAfterReplayingJobsIsStillAudited() {
		DelayQueueOperations operations = mock(DelayQueueOperations.class);
		given(operations.stats("orders"))
			.willReturn(new QueueStats(List.of(), Map.of("orders", TopicStats.EMPTY), Instant.now(), Map.of()));
		List<String> ids = new ArrayList<>();
		IntStream.range(0, ReplayResult.MAX_IDS).forEach((i) -> ids.add("o-" + i));
		given(operations.replayDeadJobs(eq("orders"), anyInt()))
			.willReturn(new ReplayResult(DelayQueueOperations.MAX_REPLAY, ids))
			.willThrow(new DelayQueueConnectionException("Redis unreachable during replay", new RuntimeException()));
		DelayQueueEndpoint endpoint = new DelayQueueEndpoint(operations, List::of, null, false, null, "endpoint");
		assertThatExceptionOfType(DelayQueueConnectionException.class)
			.isThrownBy(() -> endpoint.act(SecurityContext.NONE, "orders", "replay", null, null, null));
		// 100,000 jobs were made READY again by this request
		assertThat(this.lines.list).as("audit lines").hasSize(1);
		assertThat(this.lines.list.get(0).getFormattedMessage()).contains("action=replay", "count=100000");
	}

}
