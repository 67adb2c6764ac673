package io.github.delayqueue.benchmarks;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * One scenario run of one implementation in a JVM of its own ({@code bench.jvm=fresh}). The
 * parent launches the child with its own java binary and class path, the flags of
 * {@code bench.jvmArgs} and its {@code bench.*} properties; the child connects to the
 * parent's Redis, warms the implementation up ({@link WarmUp}), runs the scenario and writes
 * its figures to a file that the parent reads.
 */
final class ForkedRun {

	private final List<String> jvm;

	/**
	 * @param jvmArgs the child's JVM flags, separated by white space
	 */
	ForkedRun(String jvmArgs) {
		this.jvm = new ArrayList<>();
		this.jvm.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		this.jvm.addAll(Arrays.asList(jvmArgs.trim().split("\\s+")));
		this.jvm.removeIf(String::isEmpty);
	}

	/**
	 * The child's JVM flags, as the report states them.
	 */
	String flags() {
		return String.join(" ", this.jvm.subList(1, this.jvm.size()));
	}

	/**
	 * Runs the scenario for the implementation in a child JVM.
	 * @return its figures, empty when the child failed
	 */
	Map<String, Double> run(Scenario scenario, Subject.Kind kind, BenchRedis redis)
			throws IOException, InterruptedException {
		Path out = Files.createTempFile("bench-" + scenario.key() + "-", ".properties");
		try {
			List<String> command = new ArrayList<>(this.jvm);
			System.getProperties()
				.stringPropertyNames()
				.stream()
				.filter((name) -> name.startsWith("bench.") && !name.equals("bench.jvmArgs"))
				.forEach((name) -> command.add("-D" + name + "=" + System.getProperty(name)));
			command.addAll(List.of("-Dbench.child.scenario=" + scenario.key(), "-Dbench.child.impl=" + kind.name(),
					"-Dbench.child.out=" + out, "-Dbench.child.redis=" + redis.host() + ":" + redis.port(),
					"-classpath", System.getProperty("java.class.path"), ForkedRun.class.getName()));
			int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
			return (exit == 0) ? read(out) : Map.of();
		}
		finally {
			Files.deleteIfExists(out);
		}
	}

	/**
	 * The child: runs the scenario and implementation the parent named, against its Redis.
	 */
	public static void main(String[] args) {
		try {
			Scenario.Settings settings = new Scenario.Settings(
					Double.parseDouble(System.getProperty("bench.scale", "1")), 1);
			Scenario scenario = BenchmarkMain.select(System.getProperty("bench.child.scenario"), settings).get(0);
			Subject.Kind kind = Subject.Kind.valueOf(System.getProperty("bench.child.impl"));
			String[] address = System.getProperty("bench.child.redis").split(":");
			try (BenchRedis redis = BenchRedis.connect(address[0], Integer.parseInt(address[1]))) {
				write(BenchmarkMain.measure(scenario, kind, redis, true),
						Path.of(System.getProperty("bench.child.out")));
			}
		}
		catch (Exception ex) {
			ex.printStackTrace();
			System.exit(1);
		}
		// the implementations' non-daemon threads must not keep the child alive
		System.exit(0);
	}

	private static void write(Map<String, Double> figures, Path file) throws IOException {
		Properties properties = new Properties();
		figures.forEach((label, value) -> properties.setProperty(label, Double.toString(value)));
		try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
			properties.store(writer, null);
		}
	}

	private static Map<String, Double> read(Path file) throws IOException {
		Properties properties = new Properties();
		try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
			properties.load(reader);
		}
		Map<String, Double> figures = new LinkedHashMap<>();
		properties.stringPropertyNames()
			.forEach((label) -> figures.put(label, Double.parseDouble(properties.getProperty(label))));
		return figures;
	}

}
