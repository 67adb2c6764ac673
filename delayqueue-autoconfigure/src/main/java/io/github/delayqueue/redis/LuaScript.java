package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script from this package's resources, with its SHA-1 for {@code EVALSHA}.
 */
final class LuaScript {

	/** The helpers of the job scripts: each script starts with those it uses. */
	private static final LuaLibrary JOB_LIBRARY = LuaLibrary.parse("lib", read("lib"));

	/** The helpers of the scripts on a topic's own slot. */
	private static final LuaLibrary TOPIC_LIBRARY = LuaLibrary.parse("topiclib", read("topiclib"));

	private final String name;

	private final byte[] body;

	private final byte[] sha;

	private final int keys;

	private LuaScript(String name, String body, int keys) {
		this.name = name;
		this.keys = keys;
		this.body = body.getBytes(StandardCharsets.UTF_8);
		this.sha = sha1Hex(this.body).getBytes(StandardCharsets.US_ASCII);
	}

	/**
	 * Loads a job script: the helpers of {@code lib.lua} it uses followed by the script
	 * itself. It takes two keys: the bucket's jobs hash and its guard.
	 * @param name the file name without {@code .lua}
	 * @return the script
	 */
	static LuaScript job(String name) {
		// the body runs as a function, so that the state counts it changed are written after
		// it returns, whichever return it took
		String script = "local function main()\n" + read(name)
				+ "\nend\nlocal result = main()\nflush_counts()\nreturn result\n";
		return new LuaScript(name, JOB_LIBRARY.preludeFor(script) + script, 2);
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
		return new LuaScript(name, TOPIC_LIBRARY.preludeFor(script) + script, keys);
	}

	/**
	 * Loads a script that stands alone.
	 * @param name the file name without {@code .lua}
	 * @param keys how many of its arguments are keys
	 * @return the script
	 */
	static LuaScript standalone(String name, int keys) {
		return new LuaScript(name, read(name), keys);
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

}
