package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Every {@code delayqueue.forward.*} property the documentation names is known to
 * {@link DelayQueueForwardProperties}, bound as the start-up binds it (at the
 * {@code delayqueue} root, unknown names refused, its subtree only).
 */
class DelayQueueForwardPropertiesNamesTests {

	private static final Pattern EXAMPLE = Pattern.compile("^\\s*(delayqueue\\.forward[A-Za-z0-9.\\[\\]-]+)=(\\S*)",
			Pattern.MULTILINE);

	@Test
	void everyForwardPropertyOfTheDocumentationsExamplesIsKnown() throws IOException {
		int examples = 0;
		try (Stream<Path> docs = Files.list(Path.of("../docs"))) {
			for (Path file : Stream.concat(docs.filter((path) -> path.toString().endsWith(".md")),
					Stream.of(Path.of("../README.md"))).toList()) {
				Matcher matcher = EXAMPLE.matcher(Files.readString(file));
				while (matcher.find()) {
					String name = matcher.group(1);
					assertThatNoException().as(name).isThrownBy(() -> bind(name, matcher.group(2)));
					examples++;
				}
			}
		}
		assertThat(examples).isPositive();
	}

	@Test
	void aMisspeltForwardNameIsRefusedAndTheOtherDelayQueueNamesAreNotItsOwn() {
		assertThatException().isThrownBy(() -> bind("delayqueue.forward.orders.concurency", "3"))
			.havingRootCause()
			.withMessageContaining("delayqueue.forward.orders.concurency");
		assertThatNoException().isThrownBy(() -> bind("delayqueue.namespace", "shop"));
	}

	private static void bind(String name, String value) {
		BindHandler handler = new UnknownPropertiesBindHandlerAdvisor().apply(BindHandler.DEFAULT);
		new Binder(new MapConfigurationPropertySource(Map.of(name, value))).bind("delayqueue",
				Bindable.of(DelayQueueForwardProperties.class), handler);
	}

}
