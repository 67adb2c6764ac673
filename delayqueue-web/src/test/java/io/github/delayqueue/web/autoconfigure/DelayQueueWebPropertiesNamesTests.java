package io.github.delayqueue.web.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every {@code delayqueue.http.*} and {@code delayqueue.dashboard.*} property the
 * documentation's examples name is bound by {@link DelayQueueHttpProperties} or
 * {@link DelayQueueDashboardProperties}.
 */
class DelayQueueWebPropertiesNamesTests {

	private static final Pattern EXAMPLE = Pattern
		.compile("^\\s*delayqueue\\.(http|dashboard)\\.([A-Za-z0-9.\\[\\]-]+)=(\\S*)", Pattern.MULTILINE);

	@Test
	void everyWebPropertyOfTheDocumentationsExamplesIsKnown() throws IOException {
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
				String root = "delayqueue." + matcher.group(1);
				Object target = matcher.group(1).equals("http") ? new DelayQueueHttpProperties()
						: new DelayQueueDashboardProperties();
				MapConfigurationPropertySource source = new MapConfigurationPropertySource(
						Map.of(root + "." + matcher.group(2), matcher.group(3)));
				BindHandler handler = new NoUnboundElementsBindHandler(BindHandler.DEFAULT);
				assertThatNoException().as(matcher.group())
					.isThrownBy(() -> new Binder(source).bind(ConfigurationPropertyName.of(root),
							Bindable.ofInstance(target), handler));
				examples++;
			}
		}
		assertThat(examples).isGreaterThan(5);
	}

}
