package io.github.delayqueue.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.RedisSystemException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which failures of {@code FCALL} let a call run with {@code EVALSHA} instead: only an error
 * reply of Redis refusing the command itself, never one after which the function may have run.
 */
class ScriptRunnerTests {

	private static RedisSystemException lettuce(String reply) {
		return new RedisSystemException("Error in execution", new RedisCommandExecutionException(reply));
	}

	private static RedisSystemException jedis(Exception driver) {
		return new RedisSystemException("Error in execution", driver);
	}

	@Test
	void aServerOrAclOrProxyWithoutFunctionsRefusesTheCommand() {
		assertThat(ScriptRunner.isRefusal(lettuce("ERR unknown command `FCALL`, with args beginning with: "
				+ "`delayqueue_0123_schedule` `2` `{delayqueue:3}:jobs` "))).isTrue();
		assertThat(ScriptRunner.isRefusal(lettuce("NOPERM this user has no permissions to run the 'fcall' command")))
			.isTrue();
		assertThat(ScriptRunner.isRefusal(lettuce("NOPERM User dq has no permissions to run the 'function|load' command")))
			.isTrue();
		assertThat(ScriptRunner.isRefusal(lettuce("ERR unsupported command 'fcall'"))).isTrue();
		assertThat(ScriptRunner.isRefusal(jedis(new JedisDataException("ERR unknown command 'FCALL'")))).isTrue();
		assertThat(ScriptRunner.isRefusal(jedis(new JedisAccessControlException(
				"NOPERM this user has no permissions to run the 'fcall' command")))).isTrue();
	}

	@Test
	void anErrorOfAFunctionThatRanIsNoRefusal() {
		assertThat(ScriptRunner.isRefusal(lettuce("ERR delayqueue: the record of job t:1 is unreadable script: "
				+ "delayqueue_0123_finish, on @user_function:412."))).isFalse();
		assertThat(ScriptRunner.isRefusal(lettuce("ERR The user executing the script can't run this command or "
				+ "subcommand script: delayqueue_0123_schedule, on @user_function:97."))).isFalse();
		assertThat(ScriptRunner.isRefusal(lettuce("ERR ACL failure in script: No permissions to access a key")))
			.isFalse();
		assertThat(ScriptRunner.isRefusal(lettuce("ERR Unknown Redis command called from script"))).isFalse();
	}

	@Test
	void onlyAnErrorReplyThatNamesTheFunctionsLineShowsThatItRan() {
		assertThat(ScriptRunner.ran(lettuce("ERR delayqueue: the record of job t:1 is unreadable script: "
				+ "delayqueue_0123_finish, on @user_function:412."))).isTrue();
		assertThat(ScriptRunner.ran(jedis(new JedisDataException("ERR user_function:97: delayqueue: bad argument "
				+ "script: delayqueue_0123_schedule, on @user_function:97.")))).isTrue();
		assertThat(ScriptRunner.ran(lettuce("ERR Function not found"))).isFalse();
		assertThat(ScriptRunner.ran(lettuce("ERR unknown command `FCALL`, with args beginning with: "))).isFalse();
		assertThat(ScriptRunner.ran(lettuce("OOM command not allowed when used memory > 'maxmemory'."))).isFalse();
		assertThat(ScriptRunner.ran(new RedisConnectionFailureException("Redis gone",
				new RedisConnectionException("Connection closed")))).isFalse();
	}

	@Test
	void aStateOfTheServerThatRefusesScriptsAlikeIsNoRefusal() {
		for (String reply : new String[] { "OOM command not allowed when used memory > 'maxmemory'.",
				"BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.",
				"READONLY You can't write against a read only replica.", "LOADING Redis is loading the dataset in memory",
				"MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.",
				"NOREPLICAS Not enough good replicas to write.", "MOVED 3999 127.0.0.1:6381",
				"TRYAGAIN Multiple keys request during rehashing of slot" }) {
			assertThat(ScriptRunner.isRefusal(lettuce(reply))).as(reply).isFalse();
		}
	}

	@Test
	void noAnswerIsNoRefusalAsTheFunctionMayHaveRun() {
		assertThat(ScriptRunner.isRefusal(new RedisConnectionFailureException("Redis gone",
				new RedisConnectionException("Connection closed")))).isFalse();
		assertThat(ScriptRunner.isRefusal(new RedisSystemException("Error in execution",
				new io.lettuce.core.RedisException("Connection closed")))).isFalse();
		assertThat(ScriptRunner.isRefusal(new QueryTimeoutException("Redis command timed out",
				new RedisCommandTimeoutException("Command timed out after 5 second(s)")))).isFalse();
		assertThat(ScriptRunner.isRefusal(jedis(new JedisConnectionException("Unexpected end of stream.")))).isFalse();
	}

	@Test
	void aMissingFunctionIsReadFromTheErrorReplyOnly() {
		assertThat(ScriptRunner.isFunctionMissing(lettuce("ERR Function not found"))).isTrue();
		assertThat(ScriptRunner.isFunctionMissing(new RedisSystemException("ERR Function not found",
				new io.lettuce.core.RedisException("Connection closed")))).isFalse();
	}

}
