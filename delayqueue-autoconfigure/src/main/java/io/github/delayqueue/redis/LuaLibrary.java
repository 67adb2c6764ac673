package io.github.delayqueue.redis;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A library of Lua helpers ({@code lib.lua}, {@code topiclib.lua}) split into its top-level
 * declarations, so that a script starts with only the declarations it uses.
 * <p>
 * Redis runs a whole script on every call, so every helper a script is prepended with is
 * created again on every call: a closure per function, and each of its captured locals looked
 * up in a list that grows with every local captured before it. With all of {@code lib.lua}
 * that prelude cost Redis about 12 µs per call, three times a trivial script's call. A script
 * gets the declarations its own text names, and those they name in turn, in the library's
 * order: the same code binds the same names, as Lua resolves a local by its declaration before
 * the use.
 * <p>
 * The library's top level must consist of {@code local} declarations (functions and values),
 * each starting at the beginning of a line, with their bodies indented; the parser refuses
 * anything else, so a statement that would have to run for its effect cannot be dropped
 * unnoticed.
 */
final class LuaLibrary {

	private static final Pattern FUNCTION = Pattern.compile("^local\\s+function\\s+([A-Za-z_]\\w*)");

	private static final Pattern VALUES = Pattern
		.compile("^local\\s+([A-Za-z_]\\w*(?:\\s*,\\s*[A-Za-z_]\\w*)*)\\s*(?:=|$)");

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");

	private final String name;

	private final List<Declaration> declarations;

	/** Which declarations declare each name. */
	private final Map<String, List<Integer>> declaring = new HashMap<>();

	private LuaLibrary(String name, List<Declaration> declarations) {
		this.name = name;
		this.declarations = declarations;
		for (int i = 0; i < declarations.size(); i++) {
			for (String declared : declarations.get(i).names()) {
				this.declaring.computeIfAbsent(declared, (key) -> new ArrayList<>()).add(i);
			}
		}
	}

	/**
	 * Splits a library's source into its top-level declarations.
	 * @param name the library's name, for errors
	 * @param source the library's source
	 * @return the library
	 * @throws IllegalStateException if the top level holds anything but {@code local}
	 * declarations
	 */
	static LuaLibrary parse(String name, String source) {
		List<Declaration> declarations = new ArrayList<>();
		List<String> current = null;
		List<String> names = null;
		List<String> pending = new ArrayList<>();
		String[] lines = source.split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			String line = lines[i];
			if (line.startsWith("local ")) {
				if (current != null) {
					declarations.add(declaration(names, current));
				}
				names = declaredNames(name, i + 1, line);
				current = new ArrayList<>(pending);
				pending.clear();
				current.add(line);
			}
			else if (line.isBlank() || line.startsWith("--")) {
				// comments and blank lines go with the declaration they stand before
				pending.add(line);
			}
			else if (current != null && (Character.isWhitespace(line.charAt(0)) || line.equals("end")
					|| line.startsWith("}") || line.startsWith(")"))) {
				current.addAll(pending);
				pending.clear();
				current.add(line);
			}
			else {
				throw new IllegalStateException(name + ".lua line " + (i + 1)
						+ ": the top level may hold only local declarations, found: " + line);
			}
		}
		if (current != null) {
			declarations.add(declaration(names, current));
		}
		return new LuaLibrary(name, List.copyOf(declarations));
	}

	private static List<String> declaredNames(String library, int lineNumber, String line) {
		Matcher function = FUNCTION.matcher(line);
		if (function.find()) {
			return List.of(function.group(1));
		}
		Matcher values = VALUES.matcher(line);
		if (values.find()) {
			List<String> names = new ArrayList<>();
			for (String declared : values.group(1).split(",")) {
				names.add(declared.strip());
			}
			return names;
		}
		throw new IllegalStateException(
				library + ".lua line " + lineNumber + ": cannot read the names this declaration declares: " + line);
	}

	private static Declaration declaration(List<String> names, List<String> lines) {
		String text = String.join("\n", lines);
		return new Declaration(Set.copyOf(names), text, identifiers(text));
	}

	/**
	 * The declarations a script needs, in the library's order.
	 * @param script the script's own text (and whatever wraps it)
	 * @return the declarations' text, to be put before the script
	 */
	String preludeFor(String script) {
		BitSet kept = new BitSet(this.declarations.size());
		List<String> toResolve = new ArrayList<>(identifiers(script));
		Set<String> resolved = new HashSet<>();
		while (!toResolve.isEmpty()) {
			String identifier = toResolve.remove(toResolve.size() - 1);
			if (!resolved.add(identifier)) {
				continue;
			}
			for (int index : this.declaring.getOrDefault(identifier, List.of())) {
				if (!kept.get(index)) {
					kept.set(index);
					toResolve.addAll(this.declarations.get(index).references());
				}
			}
		}
		StringBuilder prelude = new StringBuilder();
		kept.stream().forEach((index) -> prelude.append(this.declarations.get(index).text()).append('\n'));
		return prelude.toString();
	}

	/**
	 * How many top-level declarations the library has.
	 * @return the number of declarations
	 */
	int size() {
		return this.declarations.size();
	}

	/**
	 * The names the library declares.
	 * @return the names
	 */
	Set<String> names() {
		return this.declaring.keySet();
	}

	@Override
	public String toString() {
		return this.name + ".lua (" + this.declarations.size() + " declarations)";
	}

	/**
	 * The identifiers a piece of Lua names outside comments and string literals (a local can
	 * only be named in code).
	 */
	static Set<String> identifiers(String lua) {
		Set<String> identifiers = new LinkedHashSet<>();
		Matcher matcher = IDENTIFIER.matcher(code(lua));
		while (matcher.find()) {
			identifiers.add(matcher.group());
		}
		return identifiers;
	}

	/** The text with comments and string literals blanked out. */
	private static String code(String lua) {
		StringBuilder code = new StringBuilder(lua.length());
		int i = 0;
		int length = lua.length();
		while (i < length) {
			char c = lua.charAt(i);
			if (c == '-' && lua.startsWith("--", i)) {
				int level = longBracketLevel(lua, i + 2);
				int end = (level >= 0) ? closingBracket(lua, i + 2, level) : lua.indexOf('\n', i);
				i = (end < 0) ? length : end;
				code.append(' ');
			}
			else if (c == '[' && longBracketLevel(lua, i) >= 0) {
				int end = closingBracket(lua, i, longBracketLevel(lua, i));
				i = (end < 0) ? length : end;
				code.append(' ');
			}
			else if (c == '\'' || c == '"') {
				i++;
				while (i < length && lua.charAt(i) != c) {
					i += (lua.charAt(i) == '\\') ? 2 : 1;
				}
				i++;
				code.append(' ');
			}
			else {
				code.append(c);
				i++;
			}
		}
		return code.toString();
	}

	/** The level of a long bracket ({@code [[}, {@code [=[}, ...) opening at the index, or -1. */
	private static int longBracketLevel(String lua, int index) {
		if (index >= lua.length() || lua.charAt(index) != '[') {
			return -1;
		}
		int level = 0;
		int i = index + 1;
		while (i < lua.length() && lua.charAt(i) == '=') {
			level++;
			i++;
		}
		return (i < lua.length() && lua.charAt(i) == '[') ? level : -1;
	}

	/** The index just after the long bracket of the level that closes the one at the index. */
	private static int closingBracket(String lua, int index, int level) {
		String closing = "]" + "=".repeat(level) + "]";
		int end = lua.indexOf(closing, index);
		return (end < 0) ? -1 : end + closing.length();
	}

	private record Declaration(Set<String> names, String text, Set<String> references) {
	}

}
