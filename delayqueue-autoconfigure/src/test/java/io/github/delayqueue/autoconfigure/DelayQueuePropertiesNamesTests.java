package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every property the metadata and the documentation name is known to
 * {@link DelayQueueProperties}: binding it as the start-up does, unknown names refused,
 * refuses none of them.
 */
class DelayQueuePropertiesNamesTests {

	private static final Pattern EXAMPLE = Pattern.compile("^\\s*(delayqueue\\.[A-Za-z0-9.\\[\\]-]+)=(\\S*)",
			Pattern.MULTILINE);

	/** The properties of the optional modules, bound by their own properties objects. */
	static final Pattern OPTIONAL = Pattern.compile("delayqueue\\.(http|dashboard|outbox|forward)[.\\[]");

	@Test
	void everyPropertyOfTheMetadataIsKnown() throws IOException {
		JsonNode metadata = JsonMapper.builder()
			.build()
			.readTree(Files.readString(Path.of("target/classes/META-INF/spring-configuration-metadata.json")));
		Map<String, String> properties = new LinkedHashMap<>();
		for (JsonNode property : metadata.get("properties")) {
			String name = property.get("name").asString();
			String type = property.get("type").asString();
			if (name.startsWith("delayqueue.") && !type.startsWith("java.util.Map")) {
				JsonNode value = property.get("defaultValue");
				properties.put(name, (value != null && !value.isArray()) ? value.asString() : sample(type));
			}
		}
		// delayqueue.outbox.* is delayqueue-jdbc's, with metadata of its own
		assertThat(properties).containsKeys("delayqueue.listener.concurrency", "delayqueue.default-max-attempts")
			.doesNotContainKey("delayqueue.outbox.enabled");
		properties.forEach(DelayQueuePropertiesNamesTests::assertKnown);
	}

	@Test
	void everyPropertyOfTheDocumentationsExamplesIsKnown() throws IOException {
		List<Path> files;
		try (Stream<Path> docs = Files.list(Path.of("../docs"))) {
			files = Stream.concat(docs.filter((path) -> path.toString().endsWith(".md")),
					Stream.of(Path.of("../README.md"),
							Path.of("../delayqueue-sample-app/src/main/resources/application.properties")))
				.toList();
		}
		int examples = 0;
		for (Path file : files) {
			Matcher matcher = EXAMPLE.matcher(Files.readString(file));
			while (matcher.find()) {
				String name = matcher.group(1);
				// the removed property the upgrading guide names; the optional modules' own, checked there
				if (!name.equals("delayqueue.redis.functions") && !OPTIONAL.matcher(name).lookingAt()) {
					assertKnown(name, matcher.group(2));
					examples++;
				}
			}
		}
		assertThat(examples).isGreaterThan(20);
	}

	private static String sample(String type) {
		return switch (type) {
			case "java.lang.Boolean" -> "true";
			case "java.lang.Integer", "java.lang.Double" -> "2";
			case "java.time.Duration" -> "1s";
			case "org.springframework.util.unit.DataSize" -> "1MB";
			default -> "x";
		};
	}

	private static void assertKnown(String name, String value) {
		MapConfigurationPropertySource source = new MapConfigurationPropertySource(Map.of(name, value));
		BindHandler handler = new UnknownPropertiesBindHandlerAdvisor()
			.apply(BindHandler.DEFAULT);
		assertThatNoException().as(name)
			.isThrownBy(() -> new Binder(source).bind(ConfigurationPropertyName.of("delayqueue"),
					Bindable.of(DelayQueueProperties.class), handler));
	}

}
