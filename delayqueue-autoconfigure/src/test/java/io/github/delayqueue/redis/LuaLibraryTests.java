package io.github.delayqueue.redis;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Splitting a Lua library into its declarations and giving a script those it uses.
 */
class LuaLibraryTests {

	private static final String LIBRARY = """
			-- a library
			local A = 1
			local B, C = 2, 3

			-- uses A
			local function b()
				-- a comment naming c()
				return A
			end
			local function c()
				return 'd()'
			end

			local function d()
				local t = {
					[[long string naming c]],
				}
				return b() + B
			end
			local UNSET
			local function set()
				UNSET = 1
			end
			""";

	@Test
	void aScriptGetsTheDeclarationsItNamesAndThoseTheyNameInTheLibrarysOrder() {
		LuaLibrary library = LuaLibrary.parse("test", LIBRARY);
		assertThat(library.size()).isEqualTo(7);
		assertThat(library.names()).containsExactlyInAnyOrder("A", "B", "C", "b", "c", "d", "UNSET", "set");

		String prelude = library.preludeFor("return d()");
		assertThat(prelude).isEqualTo("""
				-- a library
				local A = 1
				local B, C = 2, 3

				-- uses A
				local function b()
					-- a comment naming c()
					return A
				end

				local function d()
					local t = {
						[[long string naming c]],
					}
					return b() + B
				end
				""");
	}

	@Test
	void namesInCommentsAndStringsAreNotUses() {
		LuaLibrary library = LuaLibrary.parse("test", LIBRARY);
		assertThat(library.preludeFor("-- c()\nreturn 'c' .. \"d\" .. [==[b]==] --[[ set() ]]")).isEmpty();
		assertThat(library.preludeFor("local x = 'it''s' -- d\nreturn c('\\'') ")).contains("local function c()")
			.doesNotContain("local function d()");
	}

	@Test
	void aFunctionThatAssignsALocalGetsItsDeclaration() {
		LuaLibrary library = LuaLibrary.parse("test", LIBRARY);
		assertThat(library.preludeFor("set()")).contains("local UNSET").contains("local function set()");
	}

	@Test
	void aDeclarationThatIsNotLaidOutAsTheParserReadsItIsRefused() {
		// an indented declaration after a function's end would be read as part of that function
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test",
					"local function a()\n\treturn 1\nend\n\tlocal function b()\n\t\treturn 2\n\tend\n"))
			.withMessageStartingWith("test.lua line 4: the top level may hold only local declarations");
		// a function whose end is indented would swallow the next declaration
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test",
					"local function a()\n\treturn 1\n\tend\nlocal function b()\n\treturn 2\nend\n"))
			.withMessage("test.lua line 4: a declaration starts a line before the one of a ended (is an end "
					+ "indented?): local function b()");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local function a()\n\treturn 1\n\tend\n"))
			.withMessage("test.lua: the declaration of a does not end (a function's end must start a line)");
		// an indented statement after a value
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local A = 1\n\tredis.call('DEL', 'k')\n"))
			.withMessageStartingWith("test.lua line 2: the top level may hold only local declarations");
	}

	@Test
	void twoDeclarationsOnALineAreRefused() {
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "local A = 1; local B = 2\n"))
			.withMessage("test.lua: the declaration of A shares its lines with another statement");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "local A = 1 local B = 2\n"))
			.withMessage("test.lua: the declaration of A shares its lines with another statement");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local T = {\n\t1,\n} local U = 2\n"))
			.withMessage("test.lua: the declaration of T shares its lines with another statement");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test",
					"local function f() return 1 end local function g() return 2 end\n"))
			.withMessageStartingWith("test.lua line 1: a function's body goes on lines of its own");
		// the end of a function followed by more on its line: the function does not end there
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local function f()\n\treturn 1\nend local G = 2\n"))
			.withMessage("test.lua: the declaration of f does not end (a function's end must start a line)");
	}

	@Test
	void windowsLineEndsAreLineEnds() {
		LuaLibrary library = LuaLibrary.parse("test", LIBRARY.replace("\n", "\r\n"));
		assertThat(library.names()).containsExactlyInAnyOrder("A", "B", "C", "b", "c", "d", "UNSET", "set");
		assertThat(library.preludeFor("return c()")).isEqualTo("local function c()\n\treturn 'd()'\nend\n");
	}

	@Test
	void aStatementAtTheTopLevelIsRefused() {
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local A = 1\nredis.call('SET', 'k', A)\n"))
			.withMessage("test.lua line 2: the top level may hold only local declarations, each starting a line "
					+ "(a function's body indented, its end at the start of a line), found: redis.call('SET', 'k', A)");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "\tlocal A = 1\n"))
			.withMessageContaining("test.lua line 1");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "local = 1\n"))
			.withMessageContaining("cannot read the names");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local NOW = redis.call('TIME')\nlocal function f()\n\treturn 1\nend\n"))
			.withMessageStartingWith("test.lua: the value of NOW names redis; a value may hold only literals");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local function now()\n\treturn 1\nend\nlocal START = now()\n"))
			.withMessageStartingWith("test.lua: the value of START names now;");
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local X = (redis.call)('INCR', KEYS[1])\n"))
			.withMessageStartingWith("test.lua: the value of X names redis;");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "local A = 1 COUNTER = 2\n"))
			.withMessageStartingWith("test.lua: the value of A names COUNTER;");
		// a function may call anything: it runs only where it is named; a value may use what is pure
		assertThat(LuaLibrary.parse("test", "local function now()\n\treturn redis.call('TIME')\nend\n"
				+ "local P = string.sub(KEYS[1], 1, -5)\nlocal N = 0x1F + 1e3 + #P\nlocal T = {\n\t'}',\n\t[0] = N,\n}\n")
			.names()).containsExactlyInAnyOrder("now", "P", "N", "T");
	}

	@Test
	void aFunctionMayNotReplyWithAnErrorOfItsOwn() {
		LuaLibrary library = LuaLibrary.parse("test", LIBRARY);
		for (String script : new String[] { "return redis.error_reply('x')", "return { err = 'x' }",
				"local ok, e = pcall(d)\nreturn e", "return redis.pcall('GET', KEYS[1])", "return { xpcall(d, b) }",
				"local t = {}\nt.err = 'x'\nreturn t", "local t = {}\nt['err'] = 'x'\nreturn t",
				"return rawget(redis, 'error_reply')('x')", "return { coroutine.resume(coroutine.create(d)) }" }) {
			assertThatIllegalStateException()
				.isThrownBy(() -> library.functionLibrary("lib", List.of(new LuaLibrary.Function("f", script, false))))
				.withMessageContaining("may reply with an error Redis does not mark as a function's");
		}
		// nor may a helper a function uses
		LuaLibrary catching = LuaLibrary.parse("catching", "local function safe(f)\n  return pcall(f)\nend\n");
		assertThatIllegalStateException()
			.isThrownBy(() -> catching.functionLibrary("lib", List.of(new LuaLibrary.Function("f", "return safe(g)", false))))
			.withMessageContaining("pcall");
		// error() is marked by Redis; names and strings that only mention the words are no code
		assertThat(library.functionLibrary("lib", List.of(new LuaLibrary.Function("f",
				"-- no pcall here\nlocal error_count = 1\nif d() then error('no err = here') end\nreturn 'a pcall'", false))))
			.contains("function_name = 'f'");
	}

}
