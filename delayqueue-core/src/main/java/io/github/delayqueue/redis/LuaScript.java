package io.github.delayqueue.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.script.DigestUtils;

/**
 * A Lua script from this package's resources with its SHA-1 for {@code EVALSHA}. A line
 * {@code -- @include lib/<helper>} in a script or a helper puts that helper's file before it,
 * once per script. {@code keys}: how many of a call's arguments are keys.
 */
record LuaScript(String name, byte[] body, byte[] sha, int keys) {

	private static final Pattern INCLUDE = Pattern.compile("^-- @include (\\S+)$", Pattern.MULTILINE);

	private LuaScript(String name, String body, int keys) {
		this(name, body.getBytes(StandardCharsets.UTF_8),
				DigestUtils.sha1DigestAsHex(body).getBytes(StandardCharsets.US_ASCII), keys);
	}

	/** Loads a bucket's script: two keys (jobs hash, guard), the state counts written after its body returns. */
	static LuaScript job(String name) {
		return new LuaScript(name, withIncludes("-- @include lib/flush_counts\nlocal function main()\n" + read(name)
				+ "\nend\nlocal result = main()\nflush_counts()\nreturn result\n"), 2);
	}

	/** Loads a script that is not a bucket's, taking {@code keys} keys. */
	static LuaScript of(String name, int keys) {
		return new LuaScript(name, withIncludes(read(name)), keys);
	}

	/** The script with the files it includes before it, and those they include before them. */
	static String withIncludes(String script) {
		StringBuilder out = new StringBuilder();
		include(script, new HashSet<>(), out);
		return out.toString();
	}

	private static void include(String text, Set<String> included, StringBuilder out) {
		Matcher include = INCLUDE.matcher(text);
		while (include.find()) {
			if (included.add(include.group(1))) {
				include(read(include.group(1)), included, out);
			}
		}
		out.append(text).append('\n');
	}

	static String read(String name) {
		try {
			return new ClassPathResource(name + ".lua", LuaScript.class).getContentAsString(StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	@Override
	public String toString() {
		return this.name + ".lua";
	}

}
