package io.github.delayqueue.redis;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the announcer of a timer step's READY jobs does when Redis does not take the
 * announcement (the step's own success is covered with a real Redis in
 * {@link RedisDelayQueueWakeUpTests}).
 */
class ReadyAnnouncerTests {

	@Test
	void anAnnouncementThatFailsAsksTheTimerToReCheckEveryBucket() throws IOException {
		int port;
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
			port = socket.getLocalPort();
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port),
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			AtomicInteger rechecks = new AtomicInteger();
			ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { true });
			signals.topic("t");
			ReadyAnnouncer announcer = new ReadyAnnouncer(signals,
					new QueueScripts(new ScriptRunner(factory), new KeySpace("announcer", 1)), rechecks::incrementAndGet,
					(topic) -> true);
			announcer.start();
			try {
				// no consumer waits here: announced at once, on a connection nobody answers
				announcer.unannounced("t", 0, 1);
				assertThat(rechecks).hasValue(1);
			}
			finally {
				announcer.stop();
			}
		}
		finally {
			factory.destroy();
		}
	}

}
