package io.github.delayqueue.redis;

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
	void aStatementAtTheTopLevelIsRefused() {
		assertThatIllegalStateException()
			.isThrownBy(() -> LuaLibrary.parse("test", "local A = 1\nredis.call('SET', 'k', A)\n"))
			.withMessage("test.lua line 2: the top level may hold only local declarations, found: "
					+ "redis.call('SET', 'k', A)");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "\tlocal A = 1\n"))
			.withMessageContaining("test.lua line 1");
		assertThatIllegalStateException().isThrownBy(() -> LuaLibrary.parse("test", "local = 1\n"))
			.withMessageContaining("cannot read the names");
	}

}
