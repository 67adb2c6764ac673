package io.github.delayqueue.test;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit Jupiter extension that hands the {@linkplain RedisTestServers#shared() shared}
 * {@link RedisTestServer} to test constructors, lifecycle and test methods:
 *
 * <pre class="code">
 * &#64;ExtendWith(RedisTestExtension.class)
 * class MyTests {
 *     &#64;Test
 *     void works(RedisTestServer redis) { ... }
 * }
 * </pre>
 */
public class RedisTestExtension implements ParameterResolver {

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
			throws ParameterResolutionException {
		return parameterContext.getParameter().getType() == RedisTestServer.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext)
			throws ParameterResolutionException {
		return RedisTestServers.shared();
	}

}
