package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts as Redis gets them: each starts with the helpers it uses, names no helper it was
 * not given, and compiles.
 */
class LuaScriptTests extends AbstractRedisDelayQueueTests {

	private static final List<String> JOB_SCRIPTS = List.of("schedule", "cancel", "reschedule", "find", "reserve",
			"finish", "fail", "touch", "release", "replay", "trimdead", "stats", "dead", "repair", "promote",
			"recurring");

	private static final List<String> TOPIC_SCRIPTS = List.of("completed", "failed", "rate");

	private static String resource(String name) throws IOException {
		try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
			assertThat(in).as(name).isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

	/** The names a script declares at its top level (its prelude's and its wrapper's). */
	private static Set<String> topLevelNames(String script) {
		Set<String> names = new TreeSet<>();
		for (String line : script.split("\n")) {
			if (line.startsWith("local function ")) {
				names.add(line.substring(15, line.indexOf('(')).strip());
			}
			else if (line.startsWith("local ")) {
				String declared = line.substring(6).split("=")[0];
				for (String name : declared.split(",")) {
					names.add(name.strip());
				}
			}
		}
		return names;
	}

	private static void assertNamesOnlyWhatItHas(LuaScript script, LuaLibrary library) {
		String body = new String(script.body(), StandardCharsets.UTF_8);
		Set<String> used = new TreeSet<>(LuaLibrary.identifiers(body));
		used.retainAll(library.names());
		assertThat(topLevelNames(body)).as(script.name()).containsAll(used);
	}

	@Test
	void everyScriptStartsWithTheHelpersItUsesAndCompiles() throws IOException {
		LuaLibrary jobLibrary = LuaLibrary.parse("lib", resource("lib"));
		LuaLibrary topicLibrary = LuaLibrary.parse("topiclib", resource("topiclib"));
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			for (String name : JOB_SCRIPTS) {
				LuaScript script = LuaScript.job(name);
				assertNamesOnlyWhatItHas(script, jobLibrary);
				if (name.equals("schedule")) {
					// a take's helpers are not a schedule's
					assertThat(new String(script.body(), StandardCharsets.UTF_8)).contains("local function now_ms()")
						.doesNotContain("local function apply_take(");
				}
				assertThat(connection.scriptingCommands().scriptLoad(script.body()))
					.isEqualTo(new String(script.sha(), StandardCharsets.US_ASCII));
			}
			for (String name : TOPIC_SCRIPTS) {
				LuaScript script = LuaScript.topic(name);
				assertNamesOnlyWhatItHas(script, topicLibrary);
				assertThat(connection.scriptingCommands().scriptLoad(script.body()))
					.isEqualTo(new String(script.sha(), StandardCharsets.US_ASCII));
			}
		}
	}

}
