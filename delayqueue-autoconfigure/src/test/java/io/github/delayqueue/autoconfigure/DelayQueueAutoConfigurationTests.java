package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayedJobOperations;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JacksonJobPayloadConverter;
import io.github.delayqueue.core.JobPayloadConverter;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.ScheduleResult;
import io.github.delayqueue.recurring.RecurringJob;
import io.github.delayqueue.recurring.RecurringJobInfo;
import io.github.delayqueue.recurring.RecurringJobs;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.test.RedisTestExtension;
import io.github.delayqueue.test.RedisTestServer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

@ExtendWith({ RedisTestExtension.class, OutputCaptureExtension.class })
class DelayQueueAutoConfigurationTests {

	private ApplicationContextRunner runner;

	@BeforeEach
	void setUp(RedisTestServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, JacksonAutoConfiguration.class,
					DelayQueueAutoConfiguration.class))
			.withPropertyValues(redis.springBootProperties())
			.withPropertyValues("delayqueue.namespace=auto" + System.nanoTime());
	}

	@Test
	void defaultsGiveARunningQueueTemplateAndJacksonConverter() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(RedisDelayQueue.class);
			assertThat(context).hasSingleBean(DelayedJobTemplate.class);
			assertThat(context).hasSingleBean(JacksonJobPayloadConverter.class);
			RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
			assertThat(queue.isRunning()).isTrue();
			// a new namespace on one server: one bucket
			assertThat(queue.getBuckets()).isEqualTo(1);
			DelayQueueProperties properties = context.getBean(DelayQueueProperties.class);
			assertThat(properties.buckets()).isNull();
			assertThat(properties.defaultTtr()).isEqualTo(Duration.ofSeconds(60));
			assertThat(properties.defaultMaxAttempts()).isEqualTo(5);
			assertThat(properties.maxPayloadSize()).isEqualTo(DataSize.ofMegabytes(1));
			assertThat(properties.timer().leaseTtl()).isEqualTo(Duration.ofSeconds(5));
			assertThat(properties.timer().guardInterval()).isEqualTo(Duration.ofSeconds(60));
			assertThat(properties.timer().batchSize()).isEqualTo(500);

			DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
			assertThat(template.schedule("auto", "1", new Order(1, "book"), Duration.ofMinutes(1))).isTrue();
			assertThat(template.find("auto", "1").orElseThrow().state()).isEqualTo(JobState.DELAYED);
			assertThat(template.find("auto", "1").orElseThrow().payloadAsString())
				.isEqualTo("{\"id\":1,\"item\":\"book\"}");
		});
	}

	@Test
	void theOutboxWithoutItsModuleNamesTheModule() {
		this.runner.withPropertyValues("delayqueue.outbox.enabled=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("needs the module delayqueue-jdbc, which is not on the class path; add"
						+ " io.github.delayqueue:delayqueue-jdbc"));
	}

	@Test
	void theHttpApiOrTheDashboardWithoutTheirModuleNameTheModule() {
		for (String enabled : List.of("http", "dashboard")) {
			this.runner.withPropertyValues("delayqueue." + enabled + ".enabled=true")
				.run((context) -> assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("Property delayqueue." + enabled + ".enabled with value 'true' is invalid")
					.contains("needs the module delayqueue-web, which is not on the class path; add"
							+ " io.github.delayqueue:delayqueue-web"));
		}
	}

	@Test
	void aModuleTurnedOnWithAnyTrueSpellingOrAPlaceholderWithoutItsModuleNamesTheModule() {
		for (String value : List.of("on", "yes", "1", "${delayqueue-test-api:true}")) {
			this.runner.withPropertyValues("delayqueue.http.enabled=" + value)
				.run((context) -> assertThat(context).as(value)
					.getFailure()
					.rootCause()
					.hasMessageContaining("needs the module delayqueue-web, which is not on the class path"));
		}
	}

	@Test
	void aModuleTurnedOnFromASystemPropertyWithoutItsModuleNamesTheModule() {
		for (String module : List.of("http:delayqueue-web", "dashboard:delayqueue-web", "outbox:delayqueue-jdbc")) {
			String[] parts = module.split(":");
			this.runner.withSystemProperties("delayqueue." + parts[0] + ".enabled=true")
				.run((context) -> assertThat(context).as(module)
					.getFailure()
					.rootCause()
					.hasMessageContaining("needs the module " + parts[1] + ", which is not on the class path"));
		}
	}

	@Test
	void aForwardWithoutItsBrokerModuleNamesTheModule() {
		this.runner.withPropertyValues("delayqueue.forward.x.kafka.topic=orders").run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription()).isEqualTo(
					"Forwarding of topic 'x' to Kafka needs the module delayqueue-kafka, which is not on the class path.");
			assertThat(analysis.getAction()).isEqualTo("Add io.github.delayqueue:delayqueue-kafka.");
		});
		this.runner.withPropertyValues("delayqueue.forward.x.rabbit.exchange=ex")
			.run((context) -> assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.isEqualTo("Forwarding of topic 'x' to RabbitMQ needs the module delayqueue-rabbit, which is not on"
						+ " the class path."));
		this.runner.withPropertyValues("delayqueue.forward.x.concurrency=3").run((context) -> {
			FailureAnalysis analysis = FailureAnalyses.of(context.getStartupFailure());
			assertThat(analysis.getDescription()).isEqualTo("Forwarding of topic 'x' names no broker.");
			assertThat(analysis.getAction()).startsWith("Set delayqueue.forward.x.kafka.topic");
		});
	}

	@Test
	void aMisspeltNameUnderAMapEntryFailsTheStart() {
		for (String property : List.of("delayqueue.retention.orders.typo=1",
				"delayqueue.recurring.nightly.cronn=0 0 1 * * *")) {
			this.runner.withPropertyValues(property)
				.run((context) -> assertThat(context).as(property)
					.getFailure()
					.rootCause()
					.hasMessageContaining(property.substring(0, property.indexOf('='))));
		}
	}

	@Test
	void closingTheContextWritesTheAsynchronousSchedulesStillWaiting() {
		List<CompletableFuture<ScheduleResult>> futures = new ArrayList<>();
		this.runner.run((context) -> {
			DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
			for (int i = 0; i < 3_000; i++) {
				futures.add(template.job("closing", "job-" + i).payload("x").delay(Duration.ofMinutes(5)).scheduleAsync());
			}
		});
		assertThat(futures).allSatisfy((future) -> assertThat(future).isCompletedWithValueMatching(ScheduleResult::created));
		this.runner.run((context) -> assertThat(
				context.getBean(DelayQueueOperations.class).stats().topics().get("closing").delayed())
			.isEqualTo(3_000));
	}

	@Test
	void propertiesAndCustomizersShapeTheQueue() {
		this.runner
			.withPropertyValues("delayqueue.buckets=4", "delayqueue.instance-id=node-1", "delayqueue.timer.enabled=false")
			.withBean(DelayQueueBuilderCustomizer.class, () -> (builder) -> builder.defaultMaxAttempts(9))
			.run((context) -> {
				RedisDelayQueue queue = context.getBean(RedisDelayQueue.class);
				assertThat(queue.getBuckets()).isEqualTo(4);
				assertThat(queue.getInstanceId()).isEqualTo("node-1");
				assertThat(queue.getTimer().isRunning()).isFalse();
				DelayedJobTemplate template = context.getBean(DelayedJobTemplate.class);
				template.schedule("custom", "1", "x", Duration.ofMinutes(1));
				assertThat(template.find("custom", "1").orElseThrow().maxAttempts()).isEqualTo(9);
			});
	}

	@Test
	void userBeansWin() {
		this.runner.withUserConfiguration(UserBeans.class).run((context) -> {
			assertThat(context).doesNotHaveBean(RedisDelayQueue.class);
			assertThat(context.getBean(DelayQueueOperations.class)).isSameAs(context.getBean("userOperations"));
			assertThat(context.getBean(JobPayloadConverter.class)).isSameAs(context.getBean("userConverter"));
			assertThat(context).hasSingleBean(DelayedJobTemplate.class);
		});
		this.runner.withBean("userTemplate", DelayedJobTemplate.class,
				() -> new DelayedJobTemplate(mock(DelayQueueOperations.class), mock(JobPayloadConverter.class)))
			.run((context) -> {
				assertThat(context).hasSingleBean(DelayedJobTemplate.class);
				assertThat(context).hasBean("userTemplate");
			});
		this.runner.withBean("mockJobs", DelayedJobOperations.class, () -> mock(DelayedJobOperations.class))
			.run((context) -> {
				assertThat(context).doesNotHaveBean(DelayedJobTemplate.class);
				assertThat(context).hasSingleBean(DelayedJobOperations.class);
			});
	}

	@Test
	void disabledByProperty() {
		this.runner.withPropertyValues("delayqueue.enabled=false").run((context) -> {
			assertThat(context).doesNotHaveBean(DelayQueueOperations.class);
			assertThat(context).doesNotHaveBean(DelayedJobTemplate.class);
		});
	}

	@Test
	void backsOffWithoutRedisOrWithoutJackson() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(DelayQueueOperations.class);
				assertThat(context).doesNotHaveBean(DelayedJobTemplate.class);
			});
		this.runner.withClassLoader(new FilteredClassLoader(JsonMapper.class))
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueOperations.class));
	}

	@Test
	void badPropertiesFailStartUpNamingTheRule() {
		this.runner.withPropertyValues("delayqueue.namespace=bad{ns}").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("namespace 'bad{ns}'");
		});
		this.runner.withPropertyValues("delayqueue.default-ttr=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("configuration property 'delayqueue.default-ttr'")
				.contains("ttr must be between PT0.001S and P7D, was PT0S");
		});
		this.runner.withConfiguration(AutoConfigurations.of(DelayedListenerAutoConfiguration.class))
			.withPropertyValues("delayqueue.listener.idle-event-interval=0s")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("configuration property 'delayqueue.listener.idle-event-interval'")
					.contains("idleEventInterval must be positive");
			});
	}

	@Test
	void badListenerSettingsFailStartUpNamingTheProperty() {
		for (String setting : List.of("delayqueue.listener.concurrency=0", "delayqueue.listener.concurrency=10001",
				"delayqueue.listener.shutdown-timeout=-1s", "delayqueue.listener.back-off.multiplier=0.5",
				"delayqueue.listener.back-off.jitter=-1ms")) {
			String property = setting.substring(0, setting.indexOf('='));
			this.runner.withConfiguration(AutoConfigurations.of(DelayedListenerAutoConfiguration.class))
				.withPropertyValues(setting)
				.run((context) -> {
					assertThat(context).as(setting).hasFailed();
					assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription()).as(setting)
						.contains(property);
				});
		}
	}

	@Test
	void aMisspeltPropertyFailsStartUpNamingTheClosestKnownOne() {
		this.runner.withPropertyValues("delayqueue.listener.concurency=4", "delayqueue.default-max-attemps=3")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("delayqueue.listener.concurency is not a known property; did you mean"
							+ " delayqueue.listener.concurrency?")
					.contains("delayqueue.default-max-attemps is not a known property; did you mean"
							+ " delayqueue.default-max-attempts?");
			});
		this.runner
			.withPropertyValues("delayqueue.recurring.nightly.topic=reports", "delayqueue.recurring.nightly.cronn=@daily")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription()).contains(
						"delayqueue.recurring.nightly.cronn is not a known property; did you mean"
								+ " delayqueue.recurring.nightly.cron?");
			});
		// a map key is named as written: the suggestion must not rename the recurring job
		this.runner
			.withPropertyValues("delayqueue.recurring.NightlyReport.topic=reports",
					"delayqueue.recurring.NightlyReport.cronn=@daily")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("; did you mean delayqueue.recurring.NightlyReport.cron?");
			});
		this.runner.withPropertyValues("delayqueue.nothing-like-it=1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.startsWith("delayqueue.nothing-like-it is not a known property\n");
		});
	}

	@Test
	void theOutboxPropertiesAreNotUnknownToTheQueue() {
		this.runner.withPropertyValues("delayqueue.outbox.platform=h2", "delayqueue.listener.concurrency=2")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void retentionIsPassedToTheQueueAndBadRetentionFailsStartUpNamingTheTopicAndTheRule() {
		// a topic with a '.' in brackets, as for any map key with one
		// a topic that only limits its DEAD jobs keeps no finished ones
		this.runner
			.withPropertyValues("delayqueue.retention[mail.v2].completed=5", "delayqueue.retention.orders.completed=3",
					"delayqueue.retention.webhook.failed=10", "delayqueue.retention.webhook.failed-age=7d")
			.run((context) -> assertThat(context.getBean(DelayQueueOperations.class).stats().completed())
				.containsOnlyKeys("mail.v2", "orders"));
		this.runner.withPropertyValues("delayqueue.retention.kept.completed=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.retention[kept]")
				.contains("retention must set completed or completedAge (finished jobs to keep),"
						+ " or failed or failedAge (DEAD jobs to keep at most), or both");
		});
		this.runner.withPropertyValues("delayqueue.retention.kept.failed=5", "delayqueue.retention.kept.payloads=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("Property: delayqueue.retention[kept].payloads")
					.contains("payloads are kept only with finished jobs: set completed or completedAge too");
			});
		this.runner.withPropertyValues("delayqueue.retention.kept.failed-age=400d").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.retention[kept].failed-age")
				.contains("failedAge must be between PT0.001S and P365D, was P400D");
		});
		this.runner.withPropertyValues("delayqueue.retention.kept.failed=1000001").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.retention[kept].failed")
				.contains("must be between 0 and 1000000");
		});
		this.runner.withPropertyValues("delayqueue.retention.kept.completed-age=0s").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.retention[kept].completed-age")
				.contains("completedAge must be between PT0.001S and P365D, was PT0S");
		});
		this.runner.withPropertyValues("delayqueue.retention.kept.completed=-1").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
				.contains("Property: delayqueue.retention[kept].completed")
				.contains("must be between 0 and 1000000");
		});
	}

	@Test
	void badRecurringJobsFailStartUpNamingTheJobAndTheRule() {
		this.runner.withPropertyValues("delayqueue.recurring.nightly.topic=reports",
				"delayqueue.recurring.nightly.cron=0 61 * * * *")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("Property: delayqueue.recurring[nightly].cron")
					.contains("Value: \"0 61 * * * *\"")
					.contains("cron '0 61 * * * *' is not a valid cron expression");
			});
		this.runner.withPropertyValues("delayqueue.recurring.nightly.topic=reports",
				"delayqueue.recurring.nightly.cron=@daily", "delayqueue.recurring.nightly.every=1h")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("Property: delayqueue.recurring[nightly]")
					.contains("set exactly one of cron, every and fixed-delay");
			});
		this.runner.withPropertyValues("delayqueue.recurring.nightly.topic=reports",
				"delayqueue.recurring.nightly.cron=@daily", "delayqueue.recurring.nightly.zone=Europe/Atlantis")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(FailureAnalyses.of(context.getStartupFailure()).getDescription())
					.contains("Property: delayqueue.recurring[nightly].zone")
					.contains("zone 'Europe/Atlantis' is not a time zone id");
			});
	}

	@Test
	void declaredRecurringJobsArePutAtStartUpAndUndeclaredOnesReportedOrRemoved(CapturedOutput output) {
		String namespace = "recurring" + System.nanoTime();
		ApplicationContextRunner runner = this.runner.withPropertyValues("delayqueue.namespace=" + namespace);
		runner
			.withPropertyValues("delayqueue.recurring.old.topic=reports", "delayqueue.recurring.old.every=1h",
					"delayqueue.recurring.kept.topic=reports", "delayqueue.recurring.kept.cron=0 0 2 * * *",
					"delayqueue.recurring.kept.zone=Europe/Berlin", "delayqueue.recurring.kept.payload={\"n\":1}",
					"delayqueue.recurring.kept.headers.tenant=acme")
			.run((context) -> {
				RecurringJobs recurring = context.getBean(RecurringJobs.class);
				assertThat(recurring.list()).extracting(RecurringJobInfo::name).containsExactly("kept", "old");
				RecurringJob kept = recurring.find("kept").orElseThrow().job();
				assertThat(kept.isDeclared()).isTrue();
				assertThat(kept.getSchedule().getZone().getId()).isEqualTo("Europe/Berlin");
				assertThat(kept.getPayloadText()).isEqualTo("{\"n\":1}");
				assertThat(kept.getHeaders()).containsEntry("tenant", "acme");
				// one defined in code is not declared: reconciling never touches it
				recurring.put(RecurringJob.builder("coded").topic("reports").every(Duration.ofHours(2)).build());
			});
		runner
			.withPropertyValues("delayqueue.recurring.kept.topic=reports", "delayqueue.recurring.kept.cron=0 0 2 * * *",
					"delayqueue.recurring.kept.zone=Europe/Berlin", "delayqueue.recurring.kept.payload={\"n\":1}",
					"delayqueue.recurring.kept.headers.tenant=acme")
			.run((context) -> {
				RecurringJobs recurring = context.getBean(RecurringJobs.class);
				assertThat(recurring.list()).extracting(RecurringJobInfo::name).containsExactly("coded", "kept", "old");
				assertThat(recurring.find("kept").orElseThrow().version()).isEqualTo(1);
				assertThat(output).contains("Recurring job(s) [old] were declared in delayqueue.recurring and are no longer");
			});
		runner.withPropertyValues("delayqueue.remove-undeclared-recurring-jobs=true").run((context) -> {
			RecurringJobs recurring = context.getBean(RecurringJobs.class);
			assertThat(recurring.list()).extracting(RecurringJobInfo::name).containsExactly("coded");
			assertThat(output).contains("Deleted recurring job(s) [kept, old]");
		});
	}

	record Order(long id, String item) {
	}

	@Configuration(proxyBeanMethods = false)
	static class UserBeans {

		@Bean
		DelayQueueOperations userOperations() {
			return mock(DelayQueueOperations.class);
		}

		@Bean
		JobPayloadConverter userConverter() {
			return mock(JobPayloadConverter.class);
		}

		@Bean
		RedisConnectionFactory redisConnectionFactory() {
			return mock(RedisConnectionFactory.class);
		}

	}

}
