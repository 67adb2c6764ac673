package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;

/**
 * A Lua script from this package's resources, with its SHA-1 for {@code EVALSHA}, and for the
 * job scripts that run once or more per job, the name of the function that runs it in
 * {@link #JOB_FUNCTIONS} ({@code FCALL}).
 */
final class LuaScript {

	/** The helpers of the job scripts: each script starts with those it uses. */
	private static final LuaLibrary JOB_LIBRARY = LuaLibrary.parse("lib", read("lib"));

	/** The helpers of the scripts on a topic's own slot. */
	private static final LuaLibrary TOPIC_LIBRARY = LuaLibrary.parse("topiclib", read("topiclib"));

	/**
	 * The job scripts that run once or more per job (schedule, timer step, take, take and
	 * finish): where Redis allows it, they run as functions, see {@link #JOB_FUNCTIONS}. The
	 * value says whether the function runs while Redis is out of memory: the timer step, the
	 * take and the finish, which move jobs or free memory (and which, as scripts, start with a
	 * deletion that Redis lets through), do; a schedule, which adds jobs, is refused.
	 */
	private static final Map<String, Boolean> FUNCTIONS = Map.of("schedule", false, "promote", true, "reserve", true,
			"finish", true);

	/**
	 * The library of the job scripts that run as functions ({@code FUNCTION LOAD}, Redis 7),
	 * named after a hash of its source: each version of delayqueue loads its own, and versions
	 * side by side each call theirs.
	 */
	static final FunctionLibrary JOB_FUNCTIONS = FunctionLibrary.of(JOB_LIBRARY, FUNCTIONS);

	private final String name;

	private final byte[] body;

	private final byte @Nullable [] function;

	private final byte[] sha;

	private final int keys;

	private LuaScript(String name, String body, int keys, @Nullable String function) {
		this.name = name;
		this.keys = keys;
		this.body = body.getBytes(StandardCharsets.UTF_8);
		this.sha = sha1Hex(this.body).getBytes(StandardCharsets.US_ASCII);
		this.function = (function != null) ? function.getBytes(StandardCharsets.US_ASCII) : null;
	}

	/**
	 * Loads a job script: the helpers of {@code lib.lua} it uses followed by the script
	 * itself. It takes two keys: the bucket's jobs hash and its guard.
	 * @param name the file name without {@code .lua}
	 * @return the script
	 */
	static LuaScript job(String name) {
		String script = jobScript(name);
		return new LuaScript(name, JOB_LIBRARY.preludeFor(script) + script, 2,
				FUNCTIONS.containsKey(name) ? JOB_FUNCTIONS.function(name) : null);
	}

	private static String jobScript(String name) {
		// the body runs as a function, so that the state counts it changed are written after
		// it returns, whichever return it took
		return "local function main()\n" + read(name) + "\nend\nlocal result = main()\nflush_counts()\nreturn result\n";
	}

	/**
	 * Loads a script on a topic's own slot: the helpers of {@code topiclib.lua} it uses
	 * followed by the script itself. It takes the topic's two keys.
	 * @param name the file name without {@code .lua}
	 * @return the script
	 */
	static LuaScript topic(String name) {
		return topic(name, 2);
	}

	/**
	 * Loads a script on a topic's own slot: the helpers of {@code topiclib.lua} it uses
	 * followed by the script itself.
	 * @param name the file name without {@code .lua}
	 * @param keys how many of the topic's keys it takes
	 * @return the script
	 */
	static LuaScript topic(String name, int keys) {
		String script = read(name);
		return new LuaScript(name, TOPIC_LIBRARY.preludeFor(script) + script, keys, null);
	}

	/**
	 * Loads a script that stands alone.
	 * @param name the file name without {@code .lua}
	 * @param keys how many of its arguments are keys
	 * @return the script
	 */
	static LuaScript standalone(String name, int keys) {
		return new LuaScript(name, read(name), keys, null);
	}

	private static String read(String name) {
		try (InputStream in = LuaScript.class.getResourceAsStream(name + ".lua")) {
			if (in == null) {
				throw new IllegalStateException("Missing script resource " + name + ".lua");
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static String sha1Hex(byte[] body) {
		try {
			return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(body));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * How many of the script's arguments are keys ({@code numkeys} of {@code EVALSHA}).
	 * @return the number of keys
	 */
	int keys() {
		return this.keys;
	}

	/**
	 * The name of the function of {@link #JOB_FUNCTIONS} that runs this script.
	 * @return the function's name, or {@code null} when the script runs only with
	 * {@code EVALSHA}
	 */
	byte @Nullable [] function() {
		return this.function;
	}

	String name() {
		return this.name;
	}

	byte[] body() {
		return this.body;
	}

	byte[] sha() {
		return this.sha;
	}

	@Override
	public String toString() {
		return this.name + ".lua";
	}

	/**
	 * A function library: its name and source for {@code FUNCTION LOAD}.
	 * @param name the library's name
	 * @param source the library's source
	 * @param scripts the scripts it runs, each as function {@code <name>_<script>}
	 */
	record FunctionLibrary(String name, byte[] source, Set<String> scripts) {

		/** The library's name while its source is hashed: no Lua code holds it. */
		private static final String PLACEHOLDER = "delayqueue_@library@";

		static FunctionLibrary of(LuaLibrary library, Map<String, Boolean> scripts) {
			List<LuaLibrary.Function> functions = new ArrayList<>();
			// in the order of their names: the same source, and hash, on every JVM
			new TreeMap<>(scripts).forEach((script, allowOom) -> functions
				.add(new LuaLibrary.Function(PLACEHOLDER + "_" + script, jobScript(script), allowOom)));
			// named after the hash of the source with the placeholder, which the name then replaces
			String template = library.functionLibrary(PLACEHOLDER, functions);
			String name = "delayqueue_" + sha1Hex(template.getBytes(StandardCharsets.UTF_8)).substring(0, 16);
			return new FunctionLibrary(name, template.replace(PLACEHOLDER, name).getBytes(StandardCharsets.UTF_8),
					Set.copyOf(scripts.keySet()));
		}

		/**
		 * The name of the function that runs a script.
		 * @param script the script's name
		 * @return the function's name
		 */
		String function(String script) {
			if (!this.scripts.contains(script)) {
				throw new IllegalArgumentException("No function runs " + script + ".lua");
			}
			return this.name + "_" + script;
		}

	}

}
