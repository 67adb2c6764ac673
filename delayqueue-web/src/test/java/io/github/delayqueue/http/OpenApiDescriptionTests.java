package io.github.delayqueue.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.core.JobConstraints;
import io.github.delayqueue.web.autoconfigure.DelayQueueHttpProperties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.beans.BeanWrapperImpl;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code openapi.yaml} says what the code does: the reserve parameters' defaults, the
 * properties' defaults it names, the limits of the input rules, and the answers of each route.
 */
class OpenApiDescriptionTests {

	/** How the description names a property with its default: {@code delayqueue.http.max-wait (default 30s)}. */
	private static final Pattern PROPERTY_DEFAULT = Pattern
		.compile("(delayqueue\\.[a-z][a-z.-]*[a-z]) \\(default ([^)]+)\\)");

	/** How the description gives the range of a duration: {@code PT0.001S to P7D}. */
	private static final Pattern DURATION_RANGE = Pattern.compile("(-?P[0-9DTHMS.]*[DHMS]) to (-?P[0-9DTHMS.]*[DHMS])");

	private static String text;

	private static Map<String, Object> document;

	@BeforeAll
	static void read() throws IOException {
		try (InputStream in = DelayQueueHttpApi.class.getResourceAsStream("openapi.yaml")) {
			text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		document = new Yaml().load(text);
	}

	@Test
	void reserveParametersDefaultToWhatTheApiDoes() {
		Map<String, Object> max = parameter("max");
		assertThat(at(max, "schema", "default")).isEqualTo(ReserveRoute.DEFAULT_MAX);
		assertThat(at(max, "schema", "minimum")).isEqualTo(1);
		Map<String, Object> wait = parameter("wait");
		assertThat(Duration.parse(textAt(wait, "schema", "default"))).isEqualTo(ReserveRoute.DEFAULT_WAIT);
		for (Map<String, Object> parameter : List.of(max, wait)) {
			// the schema holds the parameter's default; a description names only properties' defaults
			String description = PROPERTY_DEFAULT.matcher((String) parameter.get("description")).replaceAll("");
			assertThat(description).as(parameter.get("name") + "'s description").doesNotContain("default");
		}
		assertThat(range(textAt(parameter("ttr"), "description")))
			.containsExactly(Duration.ofMillis(1), JobConstraints.MAX_TTR);
	}

	@Test
	void propertyDefaultsInTheDescriptionAreThePropertiesDefaults() {
		Set<String> named = new TreeSet<>();
		Matcher matcher = PROPERTY_DEFAULT.matcher(text);
		while (matcher.find()) {
			String property = matcher.group(1).substring("delayqueue.".length());
			BeanWrapperImpl defaults = new BeanWrapperImpl(
					new Binder().bindOrCreate("delayqueue", DelayQueueProperties.class));
			if (property.startsWith("http.")) {
				defaults = new BeanWrapperImpl(new DelayQueueHttpProperties());
				property = property.substring("http.".length());
			}
			String path = Pattern.compile("-([a-z])").matcher(property).replaceAll((dash) -> dash.group(1).toUpperCase());
			Class<?> type = ClassUtils.resolvePrimitiveIfNecessary(defaults.getPropertyType(path));
			Object described = ApplicationConversionService.getSharedInstance().convert(matcher.group(2), type);
			assertThat(described).as(matcher.group()).isEqualTo(defaults.getPropertyValue(path));
			named.add(matcher.group(1));
		}
		assertThat(named).contains("delayqueue.http.max-reserve", "delayqueue.http.max-wait",
				"delayqueue.http.max-body-size", "delayqueue.http.max-topics", "delayqueue.http.max-waiting",
				"delayqueue.default-ttr");
	}

	@Test
	void limitsAreTheInputRules() {
		Map<String, Object> add = schema("AddRequest");
		assertThat(at(add, "properties", "topic", "maxLength")).isEqualTo(JobConstraints.MAX_TOPIC_LENGTH);
		assertThat(at(add, "properties", "id", "maxLength")).isEqualTo(JobConstraints.MAX_ID_LENGTH);
		assertThat(at(add, "properties", "maxAttempts", "maximum")).isEqualTo(JobConstraints.MAX_ATTEMPTS);
		assertThat(range(textAt(add, "properties", "delay", "description")))
			.containsExactly(JobConstraints.MAX_DELAY.negated(), JobConstraints.MAX_DELAY);
		assertThat(range(textAt(add, "properties", "ttr", "description")))
			.containsExactly(Duration.ofMillis(1), JobConstraints.MAX_TTR);
		Map<String, Object> parameters = mapAt(document, "components", "parameters");
		assertThat(at(parameters, "Topic", "schema", "maxLength")).isEqualTo(JobConstraints.MAX_TOPIC_LENGTH);
		assertThat(at(parameters, "Id", "schema", "maxLength")).isEqualTo(JobConstraints.MAX_ID_LENGTH);
		Map<String, Object> fail = requestBody("/jobs/{topic}/{id}/fail");
		assertThat(range(textAt(fail, "properties", "retryIn", "description")))
			.containsExactly(Duration.ZERO, JobConstraints.MAX_DELAY);
		assertThat(textAt(fail, "properties", "error", "description"))
			.contains(String.format(Locale.ROOT, "%,d characters", JobConstraints.MAX_ERROR_LENGTH));
		assertThat(range(textAt(requestBody("/jobs/{topic}/{id}/touch"), "properties", "ttr", "description")))
			.containsExactly(Duration.ofMillis(1), JobConstraints.MAX_TTR);
	}

	/**
	 * Every route: 401 without a token (when tokens are set); 400 for bad input; 503 with
	 * {@code Retry-After} when Redis is unreachable, as every route but the description's own
	 * calls Redis; 413 for a request body over the limit; 404 for no such job where a job is
	 * read, cancelled or run, 409 for a stale token where a reservation is used; 429 for a wait on
	 * one topic too many; 415 for a write sent as a form could send it.
	 */
	@Test
	void everyRouteListsTheAnswersItGives() {
		Map<String, Set<String>> expected = new TreeMap<>();
		expected.put("POST /jobs", Set.of("200", "201", "400", "401", "413", "415", "503"));
		expected.put("POST /topics/{topic}/reserve", Set.of("200", "400", "401", "415", "429", "503"));
		expected.put("GET /jobs/{topic}/{id}", Set.of("200", "400", "401", "404", "503"));
		expected.put("GET /topics/{topic}/jobs", Set.of("200", "400", "401", "503"));
		expected.put("DELETE /jobs/{topic}/{id}", Set.of("200", "400", "401", "404", "415", "503"));
		expected.put("POST /jobs/{topic}/{id}/run", Set.of("200", "400", "401", "404", "415", "503"));
		for (String action : List.of("finish", "fail", "touch")) {
			expected.put("POST /jobs/{topic}/{id}/" + action, Set.of("200", "400", "401", "409", "413", "415", "503"));
		}
		expected.put("GET /openapi.yaml", Set.of("200", "401"));
		expected.put("GET /recurring", Set.of("200", "400", "401", "404", "503"));
		expected.put("PUT /recurring/{name}", Set.of("200", "201", "400", "401", "404", "413", "415", "503"));
		expected.put("GET /recurring/{name}", Set.of("200", "400", "401", "404", "503"));
		expected.put("DELETE /recurring/{name}", Set.of("200", "400", "401", "404", "415", "503"));
		expected.put("POST /recurring/{name}/{action}", Set.of("200", "400", "401", "404", "415", "503"));
		Map<String, Set<String>> described = new TreeMap<>();
		mapAt(document, "paths").forEach((path, operations) -> mapAt(operations).forEach((method,
				operation) -> described.put(method.toUpperCase() + " " + path, mapAt(operation, "responses").keySet())));
		assertThat(described).isEqualTo(expected);

		Map<String, Object> responses = mapAt(document, "components", "responses");
		for (String retryLater : List.of("TooManyTopics", "Unavailable")) {
			assertThat(at(responses, retryLater, "headers", "Retry-After", "schema", "type")).as(retryLater)
				.isEqualTo("integer");
		}
		assertThat(mapAt(responses, "Unauthorized", "headers")).containsKey("WWW-Authenticate");
	}

	private static Map<String, Object> parameter(String name) {
		List<?> parameters = (List<?>) at(document, "paths", "/topics/{topic}/reserve", "post", "parameters");
		return parameters.stream()
			.map(OpenApiDescriptionTests::mapAt)
			.filter((parameter) -> name.equals(parameter.get("name")))
			.findFirst()
			.orElseThrow();
	}

	private static Map<String, Object> schema(String name) {
		return mapAt(document, "components", "schemas", name);
	}

	private static Map<String, Object> requestBody(String path) {
		return mapAt(document, "paths", path, "post", "requestBody", "content", "application/json", "schema");
	}

	/**
	 * The first duration range a description gives.
	 */
	private static List<Duration> range(String description) {
		Matcher matcher = DURATION_RANGE.matcher(description);
		assertThat(matcher.find()).as("a range such as PT0.001S to P7D in: " + description).isTrue();
		List<Duration> range = new ArrayList<>();
		range.add(Duration.parse(matcher.group(1)));
		range.add(Duration.parse(matcher.group(2)));
		return range;
	}

	private static Object at(Object node, String... keys) {
		Object value = node;
		for (String key : keys) {
			assertThat(value).as("the parent of " + key).isInstanceOf(Map.class);
			value = ((Map<?, ?>) value).get(key);
		}
		return value;
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> mapAt(Object node, String... keys) {
		return (Map<String, Object>) at(node, keys);
	}

	private static String textAt(Object node, String... keys) {
		return (String) at(node, keys);
	}

}
