package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonValue;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The converter refuses a payload object without properties, and only that: every payload
 * the application's mapper writes otherwise is written byte for byte as that mapper writes it.
 */
class JacksonJobPayloadConverterEmptyBeanTests {

	/** Jackson 3's default: FAIL_ON_EMPTY_BEANS off. */
	private final JsonMapper plain = JsonMapper.builder().build();

	private final JsonMapper strict = JsonMapper.builder().enable(SerializationFeature.FAIL_ON_EMPTY_BEANS).build();

	private final JsonMapper lenient = JsonMapper.builder().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS).build();

	private String written(JsonMapper mapper, Object payload) {
		return new String(new JacksonJobPayloadConverter(mapper).write(payload), StandardCharsets.UTF_8);
	}

	@Test
	void emptyContainersAndPlainValuesAreWrittenAsTheMapperWritesThem() {
		for (JsonMapper mapper : List.of(this.plain, this.strict, this.lenient)) {
			assertThat(written(mapper, Map.of())).isEqualTo("{}");
			assertThat(written(mapper, List.of())).isEqualTo("[]");
			assertThat(written(mapper, Set.of())).isEqualTo("[]");
			assertThat(written(mapper, new Object[0])).isEqualTo("[]");
			assertThat(written(mapper, "")).isEqualTo("");
			assertThat(new JacksonJobPayloadConverter(mapper).write(new byte[0])).isEmpty();
			assertThat(written(mapper, mapper.createObjectNode())).isEqualTo("{}");
			assertThat(written(mapper, Optional.empty())).isEqualTo(mapper.writeValueAsString(Optional.empty()));
			assertThat(written(mapper, Kind.A)).isEqualTo("\"A\"");
			assertThat(written(mapper, new Wrapped())).isEqualTo("\"w\"");
			assertThat(written(mapper, new AnyGetter())).isEqualTo("{}");
			assertThat(written(mapper, new AllNull())).isEqualTo("{}");
			assertThat(written(mapper, 42)).isEqualTo("42");
		}
	}

	@Test
	void aRecordWithoutComponentsIsWrittenAsTheMapperWritesIt() {
		// a signal payload: the consumer reads {} back into the record
		for (JsonMapper mapper : List.of(this.plain, this.strict, this.lenient)) {
			assertThat(written(mapper, new Ping())).isEqualTo("{}");
		}
	}

	@Test
	void anEmptyBeanInsideAPayloadIsWrittenAsALenientMapperWritesIt() {
		// the mapper's FAIL_ON_EMPTY_BEANS (off by default in Jackson 3) decides for the values inside
		for (JsonMapper mapper : List.of(this.plain, this.lenient)) {
			assertThat(written(mapper, new Order("o-1", new Marker()))).isEqualTo("{\"id\":\"o-1\",\"marker\":{}}");
		}
	}

	@Test
	void anObjectWithoutPropertiesIsRefusedNamingItsClass() {
		for (JsonMapper mapper : List.of(this.plain, this.strict, this.lenient)) {
			assertThatExceptionOfType(PayloadConversionException.class)
				.isThrownBy(() -> new JacksonJobPayloadConverter(mapper).write(new Marker()))
				.withMessageContainingAll(Marker.class.getName(), "no properties");
		}
	}

	@Test
	void anEmptyBeanInsideAPayloadRefusedByAStrictMapperIsNotSaidToBeThePayloadsFault() {
		assertThatExceptionOfType(PayloadConversionException.class)
			.isThrownBy(() -> new JacksonJobPayloadConverter(this.strict).write(new Order("o-1", new Marker())))
			.withMessageContaining(Order.class.getName())
			.withMessageContaining(Marker.class.getName())
			.withMessageNotContaining("it has no properties");
	}

	record Ping() {
	}

	record Order(String id, Marker marker) {
	}

	static class Marker {

	}

	enum Kind {

		A

	}

	static class Wrapped {

		@JsonValue
		String value() {
			return "w";
		}

	}

	static class AnyGetter {

		@JsonAnyGetter
		Map<String, Object> extra() {
			return Map.of();
		}

	}

	@JsonInclude(JsonInclude.Include.NON_NULL)
	static class AllNull {

		public String name;

	}

}
