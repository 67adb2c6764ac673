package io.github.delayqueue.redis;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
 * The library's top level must consist of {@code local} declarations, each starting a line of
 * its own: functions ({@code local function}, the body on indented lines, {@code end} alone at
 * the start of a line) and values (literals, tables, {@code KEYS}, {@code ARGV}, the values
 * declared before and calls of string and number functions). The parser refuses anything
 * else, so neither a statement that would have to run for its effect nor a declaration hidden
 * in another's lines can be dropped unnoticed. Windows line ends are read as line ends.
 */
final class LuaLibrary {

	private static final Pattern FUNCTION = Pattern.compile("^local\\s+function\\s+([A-Za-z_]\\w*)");

	private static final Pattern VALUES = Pattern
		.compile("^local\\s+([A-Za-z_]\\w*(?:\\s*,\\s*[A-Za-z_]\\w*)*)\\s*(?:=|$)");

	private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_]\\w*");

	private static final Pattern LOCAL = Pattern.compile("\\blocal\\b");

	/** A call: a name, or names joined by dots or a colon, then an opening parenthesis. */
	private static final Pattern CALL = Pattern.compile("([A-Za-z_][\\w.:]*)\\s*\\(");

	/** What could make a function reply with an error of its own: see {@link #checkErrorsNamed}. */
	private static final Pattern UNMARKED_ERRORS = Pattern
		.compile("\\berror_reply\\b|\\bx?pcall\\b|\\bcoroutine\\b|[{,]\\s*err\\s*=(?!=)|\\.err\\s*=(?!=)");

	/** The same in names spelled as strings ({@code t['err'] = x}, {@code rawget(redis, 'error_reply')}). */
	private static final Pattern UNMARKED_ERRORS_NAMED = Pattern.compile("['\"](?:err|error_reply|x?pcall)['\"]");

	/** What a value may name besides its own names, earlier values and pure calls. */
	private static final Set<String> VALUE_WORDS = Set.of("KEYS", "ARGV", "nil", "true", "false", "and", "or", "not");

	/** What a value may call: functions without effects, which no script misses if dropped. */
	private static final Set<String> PURE = Set.of("string.sub", "string.byte", "string.char", "string.format",
			"string.rep", "string.len", "string.lower", "string.upper", "math.floor", "math.max", "math.min",
			"tonumber", "tostring");

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
	 * declarations laid out as the class describes, or a value names anything else than the
	 * class allows
	 */
	static LuaLibrary parse(String name, String source) {
		List<Declaration> declarations = new ArrayList<>();
		List<String> current = null;
		List<String> names = List.of();
		boolean function = false;
		// whether the current declaration goes on: a function until its "end" at the start of
		// a line, a value while it has brackets open
		boolean open = false;
		int brackets = 0;
		Set<String> values = new HashSet<>();
		List<String> pending = new ArrayList<>();
		String[] lines = source.replace("\r\n", "\n").split("\n", -1);
		for (int i = 0; i < lines.length; i++) {
			String line = lines[i];
			if (line.startsWith("local ")) {
				if (open) {
					throw new IllegalStateException(name + ".lua line " + (i + 1) + ": a declaration starts a line "
							+ "before the one of " + String.join(", ", names) + " ended (is an end indented?): " + line);
				}
				if (current != null) {
					declarations.add(declaration(name, names, function, current, values));
					if (!function) {
						values.addAll(names);
					}
				}
				names = declaredNames(name, i + 1, line);
				function = FUNCTION.matcher(line).find();
				current = new ArrayList<>(pending);
				pending.clear();
				current.add(line);
				if (function && code(line).stripTrailing().endsWith(" end")) {
					throw new IllegalStateException(name + ".lua line " + (i + 1)
							+ ": a function's body goes on lines of its own, its end at the start of a line: " + line);
				}
				brackets = function ? 0 : brackets(line);
				open = function || brackets > 0;
			}
			else if (line.isBlank() || line.startsWith("--")) {
				// comments and blank lines go with the declaration they stand before
				pending.add(line);
			}
			else if (open && current != null) {
				current.addAll(pending);
				pending.clear();
				current.add(line);
				if (function) {
					open = !line.stripTrailing().equals("end");
				}
				else {
					brackets += brackets(line);
					open = brackets > 0;
				}
			}
			else {
				throw new IllegalStateException(name + ".lua line " + (i + 1)
						+ ": the top level may hold only local declarations, each starting a line (a function's "
						+ "body indented, its end at the start of a line), found: " + line);
			}
		}
		if (open) {
			throw new IllegalStateException(name + ".lua: the declaration of " + String.join(", ", names)
					+ " does not end (a function's end must start a line)");
		}
		if (current != null) {
			declarations.add(declaration(name, names, function, current, values));
		}
		return new LuaLibrary(name, List.copyOf(declarations));
	}

	/** How many brackets a line of code opens, less those it closes. */
	private static int brackets(String line) {
		int open = 0;
		for (char c : code(line).toCharArray()) {
			if (c == '{' || c == '(' || c == '[') {
				open++;
			}
			else if (c == '}' || c == ')' || c == ']') {
				open--;
			}
		}
		return open;
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

	private static Declaration declaration(String library, List<String> names, boolean function,
			List<String> lines, Set<String> values) {
		String text = String.join("\n", lines);
		if (!function) {
			checkValue(library, names, text, values);
		}
		return new Declaration(List.copyOf(names), function, text, identifiers(text));
	}

	/**
	 * Refuses a value that could do something when it is worked out: it may hold literals,
	 * table constructors, {@code KEYS}, {@code ARGV}, the values declared before it and calls
	 * of string and number functions, and nothing else (no second statement, no call of
	 * anything else, no assignment to another name).
	 */
	private static void checkValue(String library, List<String> names, String text, Set<String> values) {
		String code = code(text);
		if (LOCAL.matcher(code).results().count() != 1 || code.contains(";")) {
			throw new IllegalStateException(library + ".lua: the declaration of " + String.join(", ", names)
					+ " shares its lines with another statement");
		}
		Matcher identifier = IDENTIFIER.matcher(code);
		while (identifier.find()) {
			String found = identifier.group();
			boolean number = identifier.start() > 0 && Character.isDigit(code.charAt(identifier.start() - 1));
			if (!number && !found.equals("local") && !names.contains(found) && !values.contains(found)
					&& !VALUE_WORDS.contains(found) && !isPureCall(code, identifier)) {
				throw new IllegalStateException(library + ".lua: the value of " + String.join(", ", names)
						+ " names " + found + "; a value may hold only literals, tables, KEYS, ARGV, the values "
						+ "declared before it and calls of " + new TreeSet<>(PURE)
						+ " (a script that does not name it would not work it out)");
			}
		}
	}

	/** Whether the identifier found is the start of a call of a pure function ({@code string.sub(}). */
	private static boolean isPureCall(String code, Matcher identifier) {
		Matcher call = CALL.matcher(code);
		if (!call.find(identifier.start()) || call.start() != identifier.start()) {
			return false;
		}
		if (!PURE.contains(call.group(1))) {
			return false;
		}
		// the rest of the dotted name is part of the same call
		identifier.region(call.end(1), code.length());
		return true;
	}

	/**
	 * The declarations a script needs, in the library's order.
	 * @param script the script's own text (and whatever wraps it)
	 * @return the declarations' text, to be put before the script
	 */
	String preludeFor(String script) {
		StringBuilder prelude = new StringBuilder();
		kept(script).stream().forEach((index) -> prelude.append(this.declarations.get(index).text()).append('\n'));
		return prelude.toString();
	}

	/**
	 * A Redis function library ({@code FUNCTION LOAD}, Redis 7) that runs scripts as functions.
	 * Loading it runs the library's top level once: the helpers' closures are made then, not on
	 * every call as in a script's prelude. The values (such as {@code P}, derived from
	 * {@code KEYS[1]}, or the counts' tables) are declared at the top level, where the helpers
	 * capture them, and worked out again at the start of every call, in the library's order,
	 * from that call's {@code KEYS} and {@code ARGV}: a call starts from the values it would
	 * start from as a script, whatever an earlier call left in them. Each function is given the
	 * values its script needs, as {@link #preludeFor} would give them.
	 * @param library the library's name
	 * @param functions the functions, in the order to register them
	 * @return the library's source
	 */
	String functionLibrary(String library, List<Function> functions) {
		List<BitSet> kept = new ArrayList<>();
		BitSet used = new BitSet(this.declarations.size());
		for (Function function : functions) {
			BitSet needed = kept(function.script());
			kept.add(needed);
			used.or(needed);
			checkErrorsNamed(function.name(), function.script());
		}
		used.stream().forEach((index) -> checkErrorsNamed(library, this.declarations.get(index).text()));
		StringBuilder source = new StringBuilder("#!lua name=").append(library).append('\n');
		source.append("local KEYS, ARGV\n");
		used.stream().mapToObj(this.declarations::get).forEach((declaration) -> source
			.append(declaration.function() ? declaration.text() : declaration.head()).append('\n'));
		for (int i = 0; i < functions.size(); i++) {
			Function function = functions.get(i);
			source.append("redis.register_function{function_name = '").append(function.name())
				.append("', flags = {").append(function.allowOom() ? "'allow-oom'" : "").append("},\n");
			source.append("callback = function(keys, args)\nKEYS, ARGV = keys, args\n");
			kept.get(i).stream().mapToObj(this.declarations::get).filter((declaration) -> !declaration.function())
				.forEach((value) -> source.append(value.assignment()).append('\n'));
			source.append(function.script()).append("\nend}\n");
		}
		return source.toString();
	}

	/**
	 * Refuses code that could make a function reply with an error Redis does not mark as the
	 * function's: {@code redis.error_reply}, an {@code err} field of a returned table, and
	 * {@code pcall}, {@code xpcall} and coroutines, whose caught errors could be returned;
	 * also those names spelled as strings. An error of a function that ran is
	 * then always one Redis raised at a line of it, which the caller tells from a refusal of
	 * {@code FCALL} itself (after which the script may run with {@code EVALSHA}, as nothing ran).
	 */
	private static void checkErrorsNamed(String where, String lua) {
		for (Matcher unmarked : List.of(UNMARKED_ERRORS.matcher(code(lua)), UNMARKED_ERRORS_NAMED.matcher(lua))) {
			if (unmarked.find()) {
				throw new IllegalStateException(where + " may reply with an error Redis does not mark as a function's ("
						+ unmarked.group().strip() + "): raise errors with error() in the scripts that run as functions");
			}
		}
	}

	/**
	 * A function of a {@linkplain #functionLibrary function library}.
	 * @param name the function's name
	 * @param script the script it runs: its own text, as for {@link #preludeFor}
	 * @param allowOom whether it runs while Redis is out of memory ({@code maxmemory}): as a
	 * script does whose first write is a deletion. Without, Redis refuses a call that starts
	 * while memory is short, as it refuses a script at its first write of a command that may
	 * take memory
	 */
	record Function(String name, String script, boolean allowOom) {
	}

	/** The indexes of the declarations a script names, and of those they name in turn. */
	private BitSet kept(String script) {
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
		return kept;
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

	private record Declaration(List<String> names, boolean function, String text, Set<String> references) {

		/** The comments before a value's declaration, and the declaration of its names alone. */
		String head() {
			return this.text.substring(0, start()) + "local " + String.join(", ", this.names);
		}

		/** A value's declaration as an assignment to its names, declared before. */
		String assignment() {
			String declaration = this.text.substring(start());
			Matcher values = VALUES.matcher(declaration);
			boolean assigned = values.find() && declaration.charAt(values.end() - 1) == '=';
			return assigned ? declaration.substring("local ".length()) : String.join(", ", this.names) + " = nil";
		}

		/** Where the declaration starts in the text, after the comments that go with it. */
		private int start() {
			return this.text.startsWith("local ") ? 0 : this.text.indexOf("\nlocal ") + 1;
		}

	}

}
