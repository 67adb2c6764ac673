package io.github.delayqueue.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives the application context of a Spring test a real Redis server, used instead of the
 * one the application is configured with, and a namespace of its own:
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;AutoConfigureTestRedis
 * class OrderCloserTests {
 *     ...
 * }
 * </pre>
 *
 * <p>
 * The server is the {@linkplain RedisTestServers#shared() shared} one unless
 * {@link #arguments()} are given; it is started when the first context that needs it is
 * created, is not started again for contexts that need the same server, and is stopped when
 * the JVM exits. Its {@linkplain RedisTestServer#springBootProperties() connection
 * properties} ({@code spring.data.redis.host}, {@code port} and, when it has one,
 * {@code password}) and, by default, a fresh random {@code delayqueue.namespace} are added to
 * the context's environment ahead of every other property source, the test's own properties
 * included.
 *
 * <p>
 * Works with any Spring TestContext test ({@code @SpringBootTest}, {@code @SpringJUnitConfig},
 * test slices) and on a machine without Docker. The namespace is drawn when a context is
 * created: test classes with the same configuration still share one cached context, and its
 * namespace. Spring Boot prefers {@code spring.data.redis.url}, {@code sentinel.*} and
 * {@code cluster.*} to the host and port: a test configuration that sets them keeps them.
 * Connection details from a Testcontainers {@code @ServiceConnection} also take precedence
 * over these properties; with one, this annotation contributes only the namespace.
 *
 * <p>
 * The annotation is found on the test class, its superclasses, enclosing classes of
 * {@code @Nested} tests and meta-annotations.
 *
 * @see RedisTestServers
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface AutoConfigureTestRedis {

	/**
	 * {@code redis-server} command-line arguments, such as
	 * {@code {"--maxmemory", "16mb"}}. When given, the context gets a {@code redis-server}
	 * process started with them (from the {@code PATH}, else the embedded binary; never the
	 * external server or a container), shared by every context that asks for the same
	 * arguments, instead of the shared server.
	 * @return the arguments; none by default
	 */
	String[] arguments() default {};

	/**
	 * Whether to set {@code delayqueue.namespace} to a fresh random value for each
	 * application context, so that contexts sharing a server never see each other's jobs.
	 * Turn it off to keep the namespace the application or the test configures.
	 * @return {@code true} (the default) for a random namespace per context
	 */
	boolean randomNamespace() default true;

}
