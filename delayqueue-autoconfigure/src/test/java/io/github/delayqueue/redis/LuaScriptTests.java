package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

	private static final Pattern FUNCTION = Pattern.compile("(?m)^local function (\\w+)");

	private static final Pattern VALUES = Pattern.compile("(?m)^local (?!function )([\\w, ]+?)\\s*(?:=|$)");

	/**
	 * The names declared by lines that start with {@code local}: of a library, its top-level
	 * declarations; of a script, those of its prelude and its wrapper.
	 */
	private static Set<String> declared(String lua) {
		Set<String> names = new TreeSet<>();
		Matcher function = FUNCTION.matcher(lua);
		while (function.find()) {
			names.add(function.group(1));
		}
		Matcher values = VALUES.matcher(lua);
		while (values.find()) {
			for (String name : values.group(1).split(",")) {
				names.add(name.strip());
			}
		}
		return names;
	}

	/**
	 * Checks, without {@link LuaLibrary}'s own reading of Lua (regular expressions instead:
	 * one-line string literals, then comments, taken out), that every name of the library the
	 * script's code names is declared in it.
	 */
	private static void assertDeclaresWhatItNames(LuaScript script, String library) {
		String body = new String(script.body(), StandardCharsets.UTF_8);
		String code = body.replaceAll("'[^'\\n]*'|\"[^\"\\n]*\"", "''").replaceAll("--.*", "");
		Set<String> named = new TreeSet<>();
		Matcher identifier = Pattern.compile("[A-Za-z_]\\w*").matcher(code);
		while (identifier.find()) {
			named.add(identifier.group());
		}
		named.retainAll(declared(library));
		assertThat(declared(body)).as(script.name()).containsAll(named);
	}

	/**
	 * A script's text is plain ASCII: Spring Data Redis sends an {@code EVAL}'s body (a call
	 * that found no script) through the JVM's default charset, and Redis would cache another
	 * text than the one whose SHA-1 the other calls name where that charset is not UTF-8.
	 */
	private static void assertAscii(String name, LuaScript script) {
		for (byte b : script.body()) {
			assertThat(b).as("a character of %s.lua or its helpers", name).isBetween((byte) 0, (byte) 127);
		}
	}

	@Test
	void everyScriptStartsWithTheHelpersItUsesAndCompiles() throws IOException {
		String jobLibrary = resource("lib");
		String topicLibrary = resource("topiclib");
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			for (String name : JOB_SCRIPTS) {
				LuaScript script = LuaScript.job(name);
				assertDeclaresWhatItNames(script, jobLibrary);
				if (name.equals("schedule")) {
					// a take's helpers are not a schedule's
					assertThat(new String(script.body(), StandardCharsets.UTF_8)).contains("local function now_ms()")
						.doesNotContain("local function apply_take(");
				}
				assertThat(connection.scriptingCommands().scriptLoad(script.body()))
					.isEqualTo(new String(script.sha(), StandardCharsets.US_ASCII));
				assertAscii(name, script);
			}
			for (String name : TOPIC_SCRIPTS) {
				LuaScript script = LuaScript.topic(name);
				assertDeclaresWhatItNames(script, topicLibrary);
				assertAscii(name, script);
				assertThat(connection.scriptingCommands().scriptLoad(script.body()))
					.isEqualTo(new String(script.sha(), StandardCharsets.US_ASCII));
			}
		}
	}

}
