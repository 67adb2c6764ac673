package io.github.delayqueue.redis;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.data.redis.connection.RedisConnection;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scripts as Redis gets them: each starts with the helpers it includes, each once, names
 * no helper it did not include, and compiles; every helper is included by some script.
 */
class LuaScriptTests extends AbstractRedisDelayQueueTests {

	private static final List<String> JOB_SCRIPTS = List.of("schedule", "cancel", "reschedule", "find",
			"finish", "fail", "touch", "release", "replay", "trimdead", "stats", "repair", "promote",
			"recurring");

	private static final List<String> SCRIPTS = Stream
		.concat(JOB_SCRIPTS.stream(), Stream.of("completed", "failed", "rate", "coordinate", "buckets"))
		.toList();

	/** Every helper of lib/, by name. */
	private static Map<String, String> helpers() throws IOException {
		Map<String, String> helpers = new TreeMap<>();
		for (Resource helper : new PathMatchingResourcePatternResolver()
			.getResources("classpath*:io/github/delayqueue/redis/lib/*.lua")) {
			helpers.put("lib/" + helper.getFilename().replace(".lua", ""),
					helper.getContentAsString(StandardCharsets.UTF_8));
		}
		return helpers;
	}

	private static final Pattern FUNCTION = Pattern.compile("(?m)^(\\s*)local function (\\w+)");

	private static final Pattern VALUES = Pattern.compile("(?m)^(\\s*)local (?!function )([\\w, ]+?)\\s*(?:=|$)");

	/**
	 * The names declared by lines that start with {@code local}, or also by indented ones
	 * (a script's own locals, which may shadow a helper's name).
	 */
	private static Set<String> declared(String lua, boolean nested) {
		Set<String> names = new TreeSet<>();
		Matcher function = FUNCTION.matcher(lua);
		while (function.find()) {
			if (nested || function.group(1).isEmpty()) {
				names.add(function.group(2));
			}
		}
		Matcher values = VALUES.matcher(lua);
		while (values.find()) {
			if (nested || values.group(1).isEmpty()) {
				for (String name : values.group(2).split(",")) {
					names.add(name.strip());
				}
			}
		}
		return names;
	}

	/**
	 * Checks that every name the helpers declare which the script's code names (one-line string
	 * literals, then comments, taken out) is declared in it.
	 */
	private static void assertDeclaresWhatItNames(LuaScript script, String library) {
		String body = new String(script.body(), StandardCharsets.UTF_8);
		String code = body.replaceAll("'[^'\\n]*'|\"[^\"\\n]*\"", "''").replaceAll("--.*", "");
		Set<String> named = new TreeSet<>();
		Matcher identifier = Pattern.compile("[A-Za-z_]\\w*").matcher(code);
		while (identifier.find()) {
			named.add(identifier.group());
		}
		named.retainAll(declared(library, false));
		assertThat(declared(body, true)).as(script.name()).containsAll(named);
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
	void everyScriptStartsWithTheHelpersItIncludesAndCompiles() throws IOException {
		Map<String, String> helpers = helpers();
		assertThat(helpers).hasSizeGreaterThan(50);
		String library = String.join("\n", helpers.values());
		Set<String> unused = new TreeSet<>(helpers.keySet());
		try (RedisConnection connection = this.queues.connectionFactory().getConnection()) {
			for (String name : SCRIPTS) {
				LuaScript script = JOB_SCRIPTS.contains(name) ? LuaScript.job(name) : LuaScript.of(name, 2);
				String body = new String(script.body(), StandardCharsets.UTF_8);
				assertDeclaresWhatItNames(script, library);
				unused.removeIf((helper) -> body.contains(helpers.get(helper)));
				if (name.equals("schedule")) {
					// a take's helpers are not a schedule's
					assertThat(body).contains("local function now_ms()").doesNotContain("local function apply_take(");
				}
				assertThat(connection.scriptingCommands().scriptLoad(script.body()))
					.isEqualTo(new String(script.sha(), StandardCharsets.US_ASCII));
				assertAscii(name, script);
			}
		}
		assertThat(unused).as("helpers no script includes").isEmpty();
	}

	@Test
	void aHelperIncludedTwiceComesOnceBeforeWhatIncludesIt() {
		String script = LuaScript.withIncludes("-- @include lib/count\n-- @include lib/flush_counts\nreturn 1");
		assertThat(script.indexOf("local COUNTS = {}")).isEqualTo(script.lastIndexOf("local COUNTS = {}"))
			.isLessThan(script.indexOf("local function count("));
		assertThat(script.indexOf("local function count(")).isLessThan(script.indexOf("local function flush_counts("))
			.isLessThan(script.indexOf("return 1"));
	}

}
