package io.github.delayqueue.redis;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.ReservedJob;
import io.github.delayqueue.support.TestConnections;
import io.github.delayqueue.test.RedisTestServer;
import io.github.delayqueue.test.RedisTestServers;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static io.github.delayqueue.redis.RedisDelayQueueLifecycleTests.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The job scripts that run once or more per job run as functions of one library on Redis 7
 * ({@code FCALL}); the library is loaded when missing; a server that refuses functions gets
 * {@code EVALSHA} instead. Each test has a server of its own, so that its command counts are its
 * own.
 */
class RedisFunctionsTests {

	private static RedisTestServer redis;

	@RegisterExtension
	final RedisQueues queues = new RedisQueues(redis);

	@BeforeAll
	static void startRedis() {
		redis = RedisTestServers.local().start();
	}

	@AfterAll
	static void stopRedis() {
		redis.close();
	}

	@BeforeEach
	void resetServer() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			// the embedded binary of a machine without redis-server is 6.2, which has no functions
			// (CompatibilityTests runs the queue there, with EVALSHA)
			assumeTrue(RedisStats.majorVersion(this.queues.connectionFactory()) >= 7,
					"Redis functions need Redis 7 or newer");
			connection.execute("FUNCTION", bytes("FLUSH"));
			connection.serverCommands().resetConfigStats();
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Values live at the library's top level, where the helpers capture them, and are worked
	 * out again by every call: from its own keys and arguments, and whatever an earlier call
	 * put in them.
	 */
	@Test
	void aCallStartsFromTheValuesItsScriptWouldStartFrom() {
		LuaLibrary library = LuaLibrary.parse("test", """
				local K = KEYS[1]
				local SEEN = {}
				local LAST = nil
				local function see(x)
				  SEEN[#SEEN + 1] = x
				  LAST = x
				  return #SEEN
				end
				""");
		String source = library.functionLibrary("dqtest", List.of(
				new LuaLibrary.Function("dqtest_see", "return { see(K .. ARGV[1]), LAST }", false),
				new LuaLibrary.Function("dqtest_last", "local before = LAST\nsee('x')\nreturn { before or 'nil', #SEEN }", true)));
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			RawCommands.execute(connection, "FUNCTION", bytes("LOAD"), bytes(source));
			for (int i = 0; i < 2; i++) {
				assertThat(reply(RawCommands.execute(connection, "FCALL", bytes("dqtest_see"), bytes("1"), bytes("k" + i),
						bytes("a" + i))))
					.containsExactly("1", "k" + i + "a" + i);
			}
			assertThat(reply(RawCommands.execute(connection, "FCALL", bytes("dqtest_last"), bytes("1"), bytes("k"))))
				.containsExactly("nil", "1");
		}
	}

	/** A reply's elements as text. */
	private static List<String> reply(Object reply) {
		List<String> texts = new ArrayList<>();
		for (Object element : (List<?>) reply) {
			texts.add((element instanceof byte[] text) ? new String(text, StandardCharsets.UTF_8) : String.valueOf(element));
		}
		return texts;
	}

	@Test
	void theJobScriptsRunAsFunctionsOfOneLibraryLoadedOnFirstUse() throws InterruptedException {
		RedisDelayQueue queue = this.queues.start();
		assertLifecycle(queue);
		Map<String, List<String>> functions = functions();
		LuaScript.FunctionLibrary library = LuaScript.JOB_FUNCTIONS;
		assertThat(functions).containsOnlyKeys(library.function("schedule"), library.function("promote"),
				library.function("reserve"), library.function("finish"));
		// a schedule is refused while memory is short; what moves or frees jobs runs
		assertThat(functions.get(library.function("schedule"))).isEmpty();
		assertThat(functions.get(library.function("finish"))).containsExactly("allow-oom");
		assertThat(functions.get(library.function("reserve"))).containsExactly("allow-oom");
		assertThat(functions.get(library.function("promote"))).containsExactly("allow-oom");
		assertThat(succeeded("fcall")).isPositive();
	}

	@Test
	void aLibraryFlushedWhileTheQueueRunsIsLoadedAgain() throws InterruptedException {
		RedisDelayQueue queue = this.queues.start();
		queue.schedule(request("flush", "before", "x", Duration.ofHours(1)));
		assertThat(functions()).isNotEmpty();
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			connection.execute("FUNCTION", bytes("FLUSH"));
		}
		assertThat(queue.cancel("flush", "before")).isTrue();
		assertLifecycle(queue);
		assertThat(functions()).containsKey(LuaScript.JOB_FUNCTIONS.function("schedule"));
	}

	@Test
	void jedisRunsTheFunctions() throws InterruptedException {
		JedisConnectionFactory factory = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		factory.afterPropertiesSet();
		factory.start();
		try {
			runLifecycle(factory);
		}
		finally {
			factory.destroy();
		}
		assertThat(functions()).containsKey(LuaScript.JOB_FUNCTIONS.function("schedule"));
		assertThat(succeeded("fcall")).isPositive();
	}

	/**
	 * A connection the runner cannot read raw replies from (a decorated one here) gets
	 * {@code EVALSHA}: {@code FCALL} is never sent on it.
	 */
	@Test
	void aConnectionOtherThanLettucesOrJedisRunsTheScriptsWithEvalsha() throws InterruptedException {
		RedisConnectionFactory real = this.queues.connectionFactory();
		RedisConnectionFactory decorated = (RedisConnectionFactory) Proxy.newProxyInstance(
				getClass().getClassLoader(), new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					Object result = invoke(real, method, args);
					if (result instanceof RedisConnection connection) {
						return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] { RedisConnection.class },
								(p, m, a) -> invoke(connection, m, a));
					}
					return result;
				});
		runLifecycle(decorated);
		assertThat(calls("fcall") + rejected("fcall")).isZero();
		assertThat(functions()).isEmpty();
		assertThat(calls("evalsha")).isPositive();
	}

	private static @Nullable Object invoke(Object target, Method method, @Nullable Object[] args) throws Throwable {
		try {
			return method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			throw ex.getCause();
		}
	}

	/**
	 * An ACL's refusal, of {@code FCALL} or of {@code FUNCTION LOAD} after it, stands until the
	 * application restarts: asking again would add to ACL LOG every time.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "-fcall -function", "-function" })
	void anAclThatRefusesFunctionsIsNotAskedAgain(String refused) {
		LettuceConnectionFactory factory = user("later", refused.split(" "));
		try {
			QueueScripts scripts = scripts(factory, Duration.ofMillis(100));
			scripts.promote(0, 10, false, false);
			long asked = calls("fcall") + rejected("fcall") + calls("function|load") + rejected("function|load");
			assertThat(rejected("fcall") + rejected("function|load")).isEqualTo(1);
			try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
				connection.execute("ACL", bytes("SETUSER"), bytes("later"), bytes("+fcall"), bytes("+function"));
			}
			await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(() -> {
				scripts.promote(0, 10, false, false);
				return calls("fcall") + rejected("fcall") + calls("function|load") + rejected("function|load") == asked;
			});
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A server that does not know a command of functions (here {@code FUNCTION} renamed away,
	 * as a service may do) gets {@code EVALSHA}, and is asked again once the interval is over.
	 */
	@Test
	void aServerWithoutFunctionsIsAskedAgainAfterTheInterval() {
		try (RedisTestServer renamed = RedisTestServers.local().argument("--rename-command", "FUNCTION", "").start()) {
			LettuceConnectionFactory factory = TestConnections.lettuce(renamed, Duration.ofSeconds(5));
			try {
				QueueScripts scripts = scripts(factory, Duration.ofSeconds(5));
				scripts.promote(0, 10, false, false);
				assertThat(RedisStats.commandStat(factory, "fcall", "calls")).isEqualTo(1);
				assertThat(RedisStats.commandStat(factory, "evalsha", "calls")).isEqualTo(1);
				scripts.promote(0, 10, false, false);
				// within the interval: EVALSHA only
				assertThat(RedisStats.commandStat(factory, "fcall", "calls")).isEqualTo(1);
				assertThat(RedisStats.commandStat(factory, "evalsha", "calls")).isEqualTo(2);
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
					scripts.promote(0, 10, false, false);
					assertThat(RedisStats.commandStat(factory, "fcall", "calls")).isEqualTo(2);
				});
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * A server that cannot load the library for its state (out of memory here) gets
	 * {@code EVALSHA} for a few seconds, then the load again, which works once memory is back.
	 */
	@Test
	void aLibraryThatCannotBeLoadedForNowIsLoadedLater() {
		try (RedisTestServer full = RedisTestServers.local().argument("--maxmemory", "1").start()) {
			LettuceConnectionFactory factory = TestConnections.lettuce(full, Duration.ofSeconds(5));
			try {
				QueueScripts scripts = libraryRefusedForMemory(factory);
				scripts.promote(0, 10, false, false);
				// meanwhile: EVALSHA, no three round trips per call
				assertThat(RedisStats.commandStat(factory, "fcall", "calls")).isEqualTo(1);
				assertThat(RedisStats.commandStat(factory, "evalsha", "calls")).isEqualTo(2);
				try (RedisConnection connection = factory.getConnection()) {
					connection.serverCommands().setConfig("maxmemory", "0");
				}
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
					scripts.promote(0, 10, false, false);
					assertThat(RedisStats.commandStat(factory, "fcall", "calls") - RedisStats.commandStat(factory, "fcall", "failed_calls")).isPositive();
				});
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * The one call that tries functions again after a pause may meet an error of the function
	 * itself (here a record that is not in this version's format): the function ran, so
	 * functions are used again from the next call on, not paused for another interval.
	 */
	@Test
	void aFunctionsErrorEndsThePause() {
		try (RedisTestServer full = RedisTestServers.local().argument("--maxmemory", "1").start()) {
			LettuceConnectionFactory factory = TestConnections.lettuce(full, Duration.ofSeconds(5));
			try {
				QueueScripts scripts = libraryRefusedForMemory(factory);
				KeySpace keys = new KeySpace(this.queues.namespace, 1);
				try (RedisConnection connection = factory.getConnection()) {
					connection.serverCommands().setConfig("maxmemory", "0");
					connection.hashCommands().hSet(keys.jobs(0), bytes("broken:1"), bytes("not a record"));
				}
				// EVALSHA raises the error as a script's until the pause ends; then the one call that
				// tries functions again loads the library and runs the function, which raises it
				await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThatExceptionOfType(DelayQueueException.class)
					.isThrownBy(() -> scripts.schedule(new QueueScripts.ScheduleCall(0,
							List.of(request("broken", "1", "x", Duration.ofHours(1)))), Duration.ofMinutes(1), 3))
					.withMessageContaining("not in the format of this version")
					.withMessageContaining("@user_function"));
				long evalsha = RedisStats.commandStat(factory, "evalsha", "calls");
				long fcall = RedisStats.commandStat(factory, "fcall", "calls");
				scripts.promote(0, 10, false, false);
				assertThat(RedisStats.commandStat(factory, "fcall", "calls")).isEqualTo(fcall + 1);
				assertThat(RedisStats.commandStat(factory, "evalsha", "calls")).isEqualTo(evalsha);
			}
			finally {
				factory.destroy();
			}
		}
	}

	/**
	 * The queue's scripts on a server started with {@code maxmemory 1}, after a first call
	 * whose library Redis refused to load while memory is short: {@code EVALSHA} for a few
	 * seconds ({@link ScriptRunner#LOAD_RETRY}).
	 */
	private QueueScripts libraryRefusedForMemory(RedisConnectionFactory factory) {
		QueueScripts scripts = scripts(factory, Duration.ofMinutes(10));
		scripts.promote(0, 10, false, false);
		assertThat(RedisStats.commandStat(factory, "function|load", "rejected_calls")).isEqualTo(1);
		return scripts;
	}

	private QueueScripts scripts(RedisConnectionFactory factory, Duration refusalRetry) {
		return new QueueScripts(new ScriptRunner(factory, new ReplicaWait(0, Duration.ZERO), () -> {
		}, true, refusalRetry), new KeySpace(this.queues.namespace, 1));
	}

	/**
	 * The errors of a function that ran, as Redis words them and the drivers report them, are
	 * no refusal: the call is not run again with {@code EVALSHA}. A missing function is told
	 * apart, and so is an ACL refusing a key rather than the command.
	 */
	@Test
	void theErrorsOfAFunctionThatRanAreNoRefusal() {
		String source = """
				#!lua name=dqerrors
				redis.register_function('dqerrors_raise', function(keys, args)
				  redis.call('INCR', keys[1])
				  error('delayqueue: raised after a write')
				end)
				redis.register_function('dqerrors_call', function(keys, args)
				  redis.call('INCR', keys[1])
				  redis.call('HSET', keys[1], 'f', 'v')
				end)
				redis.register_function('dqerrors_nil', function(keys, args)
				  redis.call('INCR', keys[1])
				  local t = nil
				  return t.field
				end)
				""";
		JedisConnectionFactory jedis = new JedisConnectionFactory(
				new RedisStandaloneConfiguration(redis.host(), redis.port()));
		jedis.afterPropertiesSet();
		jedis.start();
		try (RedisConnection lettuce = this.queues.connectionFactory().getConnection();
				RedisConnection jedisConnection = jedis.getConnection()) {
			RawCommands.execute(lettuce, "FUNCTION", bytes("LOAD"), bytes(source));
			for (RedisConnection connection : List.of(lettuce, jedisConnection)) {
				for (String function : List.of("dqerrors_raise", "dqerrors_call", "dqerrors_nil")) {
					assertThatExceptionOfType(DataAccessException.class)
						.isThrownBy(() -> RawCommands.execute(connection, "FCALL", bytes(function), bytes("1"),
								bytes("{dqerrors}:" + function)))
						.satisfies((ex) -> {
							assertThat(ScriptRunner.errorReply(ex)).as(function).isNotNull();
							assertThat(ScriptRunner.isRefusal(ex)).as(ScriptRunner.errorReply(ex)).isFalse();
							assertThat(ScriptRunner.isFunctionMissing(ex)).isFalse();
						});
				}
				assertThatExceptionOfType(DataAccessException.class)
					.isThrownBy(() -> RawCommands.execute(connection, "FCALL", bytes("dqerrors_none"), bytes("0")))
					.satisfies((ex) -> assertThat(ScriptRunner.isFunctionMissing(ex)).isTrue());
			}
			// each ran, once per driver
			assertThat(lettuce.stringCommands().get(bytes("{dqerrors}:dqerrors_raise"))).isEqualTo(bytes("2"));
		}
		finally {
			jedis.destroy();
		}
		LettuceConnectionFactory keyless = user("keyless", "resetkeys", "~{other}:*");
		try (RedisConnection connection = keyless.getConnection()) {
			assertThatExceptionOfType(DataAccessException.class)
				.isThrownBy(() -> RawCommands.execute(connection, "FCALL", bytes("dqerrors_raise"), bytes("1"),
						bytes("{dqerrors}:x")))
				.satisfies((ex) -> {
					assertThat(ScriptRunner.errorReply(ex)).startsWith("NOPERM");
					assertThat(ScriptRunner.isRefusal(ex)).isFalse();
				});
		}
		finally {
			keyless.destroy();
		}
	}

	/**
	 * A user whose ACL refuses {@code FCALL} (refused at the call), or only
	 * {@code FUNCTION} (refused at the load), gets the same queue with {@code EVALSHA}.
	 */
	@ParameterizedTest
	@ValueSource(strings = { "-fcall -function", "-function" })
	void aServerThatRefusesFunctionsRunsTheScriptsWithEvalsha(String refused) throws InterruptedException {
		LettuceConnectionFactory factory = user("nofunctions", refused.split(" "));
		try {
			RedisDelayQueue queue = RedisDelayQueue.builder(factory).namespace(this.queues.namespace).build();
			queue.start();
			try {
				assertLifecycle(queue);
				// refused (FCALL itself, or the load after it), and not asked again
				assertThat(rejected("fcall") + rejected("function|load")).isPositive();
				long tried = calls("fcall") + rejected("fcall");
				assertLifecycle(queue);
				assertThat(calls("fcall") + rejected("fcall")).isEqualTo(tried);
			}
			finally {
				queue.stop();
			}
		}
		finally {
			factory.destroy();
		}
		assertThat(functions()).isEmpty();
		assertThat(calls("evalsha")).isPositive();
	}

	/**
	 * A started connection factory for an ACL user who may do everything, but for what the
	 * rules after it change.
	 */
	private LettuceConnectionFactory user(String name, String... rules) {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			List<byte[]> args = new ArrayList<>(List.of(bytes("SETUSER"), bytes(name), bytes("reset"), bytes("on"),
					bytes(">secret"), bytes("~*"), bytes("&*"), bytes("+@all")));
			for (String rule : rules) {
				args.add(bytes(rule));
			}
			connection.execute("ACL", args.toArray(new byte[0][]));
		}
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.host(), redis.port());
		configuration.setUsername(name);
		configuration.setPassword("secret");
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/** {@link #assertLifecycle} on a queue of this test's namespace on a connection factory. */
	private void runLifecycle(RedisConnectionFactory factory) throws InterruptedException {
		RedisDelayQueue queue = RedisDelayQueue.builder(factory).namespace(this.queues.namespace).build();
		queue.start();
		try {
			assertLifecycle(queue);
		}
		finally {
			queue.stop();
		}
	}

	private static void assertLifecycle(RedisDelayQueue queue) throws InterruptedException {
		for (int i = 0; i < 10; i++) {
			queue.schedule(request("fn", "job-" + i, "{\"i\":" + i + "}", Duration.ofMillis(100)));
		}
		try (Consumer consumer = new Consumer(queue, "fn", 2, 5)) {
			await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(consumer.distinct()).isEqualTo(10));
			assertThat(consumer.errors).isEmpty();
		}
		queue.schedule(request("fn", "now", "x", Duration.ZERO));
		List<ReservedJob> jobs = queue.reserve("fn", 1, null);
		assertThat(jobs).hasSize(1);
		assertThat(queue.finish(jobs.get(0))).isTrue();
		assertThat(queue.stats().totals().total()).isZero();
	}

	/** The functions loaded and the flags of each. */
	private Map<String, List<String>> functions() {
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			Map<String, List<String>> functions = new HashMap<>();
			List<?> libraries = (List<?>) RawCommands.execute(connection, "FUNCTION", bytes("LIST"));
			assertThat(libraries).isNotNull();
			for (Object library : libraries) {
				Map<String, Object> fields = fields((List<?>) library);
				for (Object function : (List<?>) fields.get("functions")) {
					Map<String, Object> described = fields((List<?>) function);
					List<String> flags = new ArrayList<>();
					for (Object flag : (List<?>) described.get("flags")) {
						flags.add(new String((byte[]) flag, StandardCharsets.UTF_8));
					}
					functions.put(new String((byte[]) described.get("name"), StandardCharsets.UTF_8), flags);
				}
			}
			return functions;
		}
	}

	private static Map<String, Object> fields(List<?> reply) {
		Map<String, Object> fields = new HashMap<>();
		for (int i = 0; i + 1 < reply.size(); i += 2) {
			fields.put(new String((byte[]) reply.get(i), StandardCharsets.UTF_8), reply.get(i + 1));
		}
		return fields;
	}

	/** How many times the server ran a command since the test started. */
	private long calls(String command) {
		return commandStat(command, "calls");
	}

	/** How many times a command the server ran did not fail. */
	private long succeeded(String command) {
		return commandStat(command, "calls") - commandStat(command, "failed_calls");
	}

	/** How many times the server refused a command before running it since the test started. */
	private long rejected(String command) {
		return commandStat(command, "rejected_calls");
	}

	private long commandStat(String command, String field) {
		return RedisStats.commandStat(this.queues.connectionFactory(), command, field);
	}

}
