package io.github.delayqueue.redis;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayQueueObserver;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What an announcement Redis does not take does (the steps themselves are covered with a real
 * Redis in {@link RedisDelayQueueWakeUpTests} and {@link RedisDelayQueueReservedAtOnceTests}, the
 * offers in {@link OffersTests}).
 */
class RedisTimerBackendTests {

	private static RedisTimerBackend backend(ReadySignals signals, QueueScripts scripts, Runnable recheck) {
		return new RedisTimerBackend(scripts, signals, Duration.ofSeconds(5), 100,
				DelayQueueObserver.composite(List.of()), null, null, recheck, new Offers(signals, (topic) -> true));
	}

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
			ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { true },
					ReadySignals.MAX_IDLE_TOPICS, ReadySignals.IDLE);
			signals.topic("t");
			RedisTimerBackend backend = backend(signals,
					new QueueScripts(new ScriptRunner(factory), new KeySpace("announcer", 1), "test"), rechecks::incrementAndGet);
			backend.start();
			try {
				// no consumer waits here: announced at once, on a connection nobody answers
				backend.unannounced("t", 0, 1);
				assertThat(rechecks).hasValue(1);
			}
			finally {
				backend.stop(RedisTimerBackend.STOP_WAIT);
			}
		}
		finally {
			factory.destroy();
		}
	}


	/**
	 * An Error of an announcement made on the timer's own thread is the timer's: its step fails
	 * (the timer's last error, back-off and re-check), it is not logged away as a failed
	 * announcement.
	 */
	@Test
	void anErrorOfAnAnnouncementOnTheTimerThreadIsThrownToTheTimer() {
		AssertionError error = new AssertionError("not a Redis failure");
		RedisConnectionFactory factory = (RedisConnectionFactory) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					if (method.getName().equals("getConnection")) {
						throw error;
					}
					throw new UnsupportedOperationException(method.getName());
				});
		AtomicInteger rechecks = new AtomicInteger();
		ReadySignals signals = new ReadySignals(1, (topic) -> new boolean[] { true }, ReadySignals.MAX_IDLE_TOPICS,
				ReadySignals.IDLE);
		signals.topic("t");
		RedisTimerBackend backend = backend(signals,
				new QueueScripts(new ScriptRunner(factory), new KeySpace("announcer", 1), "test"), rechecks::incrementAndGet);
		backend.start();
		try {
			// no consumer waits here: announced at once, on the timer's thread (this one)
			assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> backend.unannounced("t", 0, 1))
				.isSameAs(error);
		}
		finally {
			backend.stop(RedisTimerBackend.STOP_WAIT);
		}
	}

}
