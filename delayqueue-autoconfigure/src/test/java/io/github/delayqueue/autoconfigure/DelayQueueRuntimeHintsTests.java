package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.actuate.EndpointDescriptors;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RepairResult;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the starter, on its own classes and resources: what the queue, the
 * endpoint and forwarding read at run time, which a native
 * image must hold.
 */
class DelayQueueRuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	private final ClassLoader classLoader = getClass().getClassLoader();

	@Test
	void everyLuaScriptIsAResourceOfTheImage() throws IOException {
		registerAotFactories();
		for (String folder : new String[] { "io/github/delayqueue/redis/", "io/github/delayqueue/redis/lib/" }) {
			Resource[] scripts = new PathMatchingResourcePatternResolver(this.classLoader)
				.getResources("classpath*:" + folder + "*.lua");
			assertThat(scripts).hasSizeGreaterThan(20);
			for (Resource script : scripts) {
				String path = folder + script.getFilename();
				assertThat(RuntimeHintsPredicates.resource().forResource(path)).as(path).accepts(this.hints);
			}
		}
		assertThat(RuntimeHintsPredicates.resource().forResource("io/github/delayqueue/dashboard/index.html"))
			.rejects(this.hints);
	}

	@Test
	void theDriverTypesThatSendWaitAndBatchesCanBeLookedFor() {
		registerAotFactories();
		assertThat(RuntimeHintsPredicates.reflection().onType(RedisClusterAsyncCommands.class)).accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onType(Jedis.class)).accepts(this.hints);
	}

	@Test
	void theEndpointsAnswersAreBoundEvenWhereAnOperationDeclaresAnInterface() {
		new DelayQueueEndpointAutoConfiguration.EndpointRuntimeHints().registerHints(this.hints, this.classLoader);
		assertBound(EndpointDescriptors.RepairDescriptor.class, "result");
		assertBound(EndpointDescriptors.RecurringActionDescriptor.class, "occurrence");
		assertBound(EndpointDescriptors.QueueDescriptor.class, "buckets");
		assertBound(EndpointDescriptors.WaitingJobsDescriptor.class, "next");
		// nested in the answers
		assertBound(EndpointDescriptors.BucketDescriptor.class, "timerOwner");
		assertBound(EndpointDescriptors.KeptJobDescriptor.class, "diedAt");
		assertBound(RepairResult.class, "countsCorrected");
		assertBound(QueueStats.TopicStats.class, "overdueSince");
	}

	private void registerAotFactories() {
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories", this.classLoader)
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).extracting((registrar) -> registrar.getClass().getName())
			.contains("io.github.delayqueue.redis.RedisDelayQueueRuntimeHints");
		registrars.forEach((registrar) -> registrar.registerHints(this.hints, this.classLoader));
	}

	private void assertBound(Class<? extends Record> type, String component) {
		assertThat(Arrays.stream(type.getRecordComponents()).map((each) -> each.getName())).contains(component);
		assertThat(RuntimeHintsPredicates.reflection()
			.onType(type)
			.withMemberCategory(MemberCategory.INVOKE_DECLARED_CONSTRUCTORS)).as(type.getSimpleName())
			.accepts(this.hints);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(type, component))
			.as(type.getSimpleName() + "." + component + "()")
			.accepts(this.hints);
	}

}
