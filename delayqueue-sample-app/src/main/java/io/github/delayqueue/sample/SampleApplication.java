package io.github.delayqueue.sample;

import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.MapperFeature;
import tools.jackson.databind.cfg.CoercionAction;
import tools.jackson.databind.cfg.CoercionInputShape;
import tools.jackson.databind.type.LogicalType;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.jackson.autoconfigure.JsonMapperBuilderCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * A runnable application that shows delayqueue at work on an order flow: placing an order
 * schedules an {@code order-close} job, paying cancels it, an unpaid order is closed by a
 * {@code @DelayedListener}; each closed order notifies a flaky webhook receiver that retries
 * with back-off and ends in the dead-letter set while the receiver is down. Without
 * {@code spring.data.redis.*} settings and with nothing answering on localhost:6379 it starts
 * an embedded Redis ({@link EmbeddedRedisEnvironmentPostProcessor}).
 */
@SpringBootApplication
public class SampleApplication {

	public static void main(String[] args) {
		SpringApplication.run(SampleApplication.class, args);
	}

	/**
	 * Request bodies read strictly: an unknown field, a field given twice, content after the
	 * value, and a value of another type ({@code "12.50"} for a number, {@code 7} for a
	 * string) are refused rather than ignored or converted.
	 */
	@Bean
	JsonMapperBuilderCustomizer strictJson() {
		return (builder) -> builder.enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
			.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
			.disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
			.withCoercionConfig(LogicalType.Textual, (config) -> config.setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
				.setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
				.setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail));
	}

}
