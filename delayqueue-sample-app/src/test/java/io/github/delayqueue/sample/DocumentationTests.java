package io.github.delayqueue.sample;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README and the reference guide under {@code docs/} against the code they describe. The
 * README's quick start is the project under {@code src/it/quickstart}, which the build
 * compiles against the installed starter and runs (maven-invoker-plugin): these tests make
 * sure the README shows exactly its sources and dependency, so that what is checked is what a
 * reader copies.
 */
class DocumentationTests {

	private static final Pattern FENCED_BLOCK = Pattern.compile("(?ms)^```(\\w*)\\n(.*?)^```$");

	private static final Pattern TYPE_NAME = Pattern.compile("(?m)^(?:public )?(?:class|record|interface|enum) (\\w+)");

	private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

	private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");

	private static final Pattern VERSION = Pattern.compile("<version>([^<]+)</version>");

	private static final String QUICK_START_PACKAGE = "package com.example.shop;";

	private final Path root = repositoryRoot();

	private final Path quickStart = this.root.resolve("delayqueue-sample-app/src/it/quickstart");

	@Test
	void everyJavaBlockOfTheReadmeIsASourceFileOfTheQuickStartProject() throws IOException {
		List<String> blocks = blocks(read("README.md"), "java");
		assertThat(blocks).isNotEmpty();
		Set<Path> shown = new HashSet<>();
		for (String block : blocks) {
			assertThat(block).as("a Java block of the README").startsWith(QUICK_START_PACKAGE);
			Path source = quickStartSource("src/main/java", block);
			assertThat(source).as("the quick start's source of\n" + block).exists();
			assertThat(block).as("the README's copy of " + source).isEqualTo(Files.readString(source));
			shown.add(source);
		}
		assertThat(shown).as("the quick start's sources the README shows")
			.containsExactlyInAnyOrderElementsOf(javaFiles(this.quickStart.resolve("src/main/java")));
	}

	@Test
	void theReadmeStaysShort() throws IOException {
		assertThat(read("README.md").lines()).as("lines of the README").hasSizeLessThanOrEqualTo(250);
	}

	@Test
	void theTestingGuideShowsTheQuickStartProjectsTest() throws IOException {
		Set<Path> shown = new HashSet<>();
		for (String block : blocks(read("docs/testing.md"), "java")) {
			if (block.startsWith(QUICK_START_PACKAGE)) {
				Path source = quickStartSource("src/test/java", block);
				assertThat(source).as("the quick start's test of\n" + block).exists();
				assertThat(block).as("docs/testing.md's copy of " + source).isEqualTo(Files.readString(source));
				shown.add(source);
			}
		}
		assertThat(shown).containsExactlyInAnyOrderElementsOf(javaFiles(this.quickStart.resolve("src/test/java")));
	}

	@Test
	void theDependencyTheReadmeShowsIsTheOneTheQuickStartProjectBuildsWith() throws IOException {
		String shown = dependencyBlock(read("README.md"), "delayqueue-starter");
		Matcher version = VERSION.matcher(shown);
		assertThat(version.find()).isTrue();
		assertThat(version.group(1)).as("the version the README names, the build's without -SNAPSHOT")
			.isEqualTo(buildVersion().replace("-SNAPSHOT", ""));
		String used = Files.readString(this.quickStart.resolve("pom.xml")).replace("@project.version@", version.group(1));
		assertThat(strip(used)).contains(strip(shown));
		assertThat(dependencyBlock(read("docs/testing.md"), "delayqueue-test")).contains(version.group(0));
	}

	@Test
	void everyPropertyOfTheStarterIsInThePropertiesTable() throws IOException {
		String table = read("docs/properties.md");
		List<String> missing = new ArrayList<>();
		try (InputStream metadata = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
			assertThat(metadata).as("the starter's configuration metadata").isNotNull();
			for (JsonNode property : JsonMapper.builder().build().readTree(metadata).get("properties")) {
				String name = property.get("name").asString();
				if (name.startsWith("delayqueue.") && !table.contains("`" + name)) {
					missing.add(name);
				}
			}
		}
		assertThat(missing).as("properties missing from docs/properties.md").isEmpty();
	}

	@Test
	void theAclLineOfTheGuideIsTheOneTheSecurityTestsRun() throws IOException {
		String line = read("docs/operating.md").lines()
			.filter((candidate) -> candidate.startsWith("ACL SETUSER delayqueue "))
			.findFirst()
			.orElseThrow();
		String tested = Files.readString(this.root.resolve(
				"delayqueue-autoconfigure/src/test/java/io/github/delayqueue/security/RedisSecurityTests.java"));
		Matcher declaration = Pattern.compile("(?s)String ACL_RULES = (.*?);").matcher(tested);
		assertThat(declaration.find()).isTrue();
		String rules = Pattern.compile("\"([^\"]*)\"")
			.matcher(declaration.group(1))
			.results()
			.map((literal) -> literal.group(1))
			.collect(Collectors.joining());
		assertThat(line.replace("delayqueue", "secure").replace(">secret", ">acl-s3cret"))
			.isEqualTo("ACL SETUSER secure " + rules);
	}

	@Test
	void everyRelativeLinkOfTheDocumentationLeadsToAFileAndHeadingOfTheRepository() throws IOException {
		List<String> broken = new ArrayList<>();
		for (Path page : pages()) {
			Matcher link = LINK.matcher(withoutFencedBlocks(Files.readString(page)));
			while (link.find()) {
				String target = link.group(1);
				if (target.matches("^[a-z]+:.*")) {
					continue;
				}
				int hash = target.indexOf('#');
				String file = (hash >= 0) ? target.substring(0, hash) : target;
				Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
				String where = this.root.relativize(page) + ": " + target;
				if (!resolved.startsWith(this.root)) {
					broken.add(where + " (outside the repository)");
				}
				else if (!Files.exists(resolved)) {
					broken.add(where + " (no such file)");
				}
				else if (hash >= 0 && !anchors(resolved).contains(target.substring(hash + 1))) {
					broken.add(where + " (no such heading)");
				}
			}
		}
		assertThat(broken).isEmpty();
	}

	@Test
	void theDocumentationNamesNoCommitIssueOrPathOutsideTheRepository() throws IOException {
		Pattern internal = Pattern.compile("(?i)\\b(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\\b"
				+ "|(?<![\\w/(])#[0-9]+\\b|\\bissue [0-9]|\\.\\./shared|DESIGN\\.md|\\bthis (?:session|hour)\\b");
		List<String> found = new ArrayList<>();
		for (Path page : pages()) {
			List<String> lines = Files.readAllLines(page);
			for (int i = 0; i < lines.size(); i++) {
				Matcher matcher = internal.matcher(lines.get(i));
				while (matcher.find()) {
					found.add(this.root.relativize(page) + ":" + (i + 1) + ": " + matcher.group());
				}
			}
		}
		assertThat(found).isEmpty();
	}

	private List<Path> pages() throws IOException {
		List<Path> pages = new ArrayList<>();
		pages.add(this.root.resolve("README.md"));
		try (Stream<Path> docs = Files.list(this.root.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(pages::add);
		}
		return pages;
	}

	private Set<String> anchors(Path page) throws IOException {
		if (!page.toString().endsWith(".md")) {
			return Set.of();
		}
		return HEADING.matcher(withoutFencedBlocks(Files.readString(page)))
			.results()
			.map((heading) -> heading.group(1)
				.toLowerCase(Locale.ROOT)
				.replaceAll("[^\\p{L}\\p{N} _-]", "")
				.replace(' ', '-'))
			.collect(Collectors.toSet());
	}

	private Path quickStartSource(String sources, String block) {
		Matcher type = TYPE_NAME.matcher(block);
		assertThat(type.find()).as("a public type in\n" + block).isTrue();
		return this.quickStart.resolve(sources).resolve("com/example/shop/" + type.group(1) + ".java");
	}

	private String dependencyBlock(String page, String artifactId) {
		return blocks(page, "xml").stream()
			.filter((block) -> block.contains("<artifactId>" + artifactId + "</artifactId>"))
			.findFirst()
			.orElseThrow(() -> new AssertionError("no <dependency> block for " + artifactId));
	}

	private String buildVersion() throws IOException {
		Matcher version = Pattern.compile("<artifactId>delayqueue-parent</artifactId>\\s*<version>([^<]+)</version>")
			.matcher(read("pom.xml"));
		assertThat(version.find()).isTrue();
		return version.group(1);
	}

	@Test
	void everyRowOfTheSecuringTableNamesTestsThatExist() throws IOException {
		String guide = read("docs/operating.md");
		String section = guide.substring(guide.indexOf("## Securing it"));
		section = section.substring(0, section.indexOf("\n## ", 1));
		List<String> rows = section.lines()
			.filter((line) -> line.startsWith("| ") && !line.startsWith("| surface"))
			.toList();
		assertThat(rows).as("rows of the table: 3 surfaces by 4 set-ups").hasSize(12);
		Map<String, Path> tests;
		try (Stream<Path> files = Files.walk(this.root)) {
			tests = files
				.filter((file) -> file.toString().contains("/src/test/java/") && file.toString().endsWith("Tests.java"))
				.collect(Collectors.toMap((file) -> file.getFileName().toString().replace(".java", ""), (file) -> file,
						(first, second) -> first));
		}
		for (String row : rows) {
			String cell = row.substring(row.lastIndexOf("|", row.length() - 2) + 1);
			Matcher name = Pattern.compile("`(\\w+)(?:\\.(\\w+))?`").matcher(cell);
			String type = null;
			int named = 0;
			while (name.find()) {
				boolean isType = Character.isUpperCase(name.group(1).charAt(0));
				type = isType ? name.group(1) : type;
				String method = isType ? name.group(2) : name.group(1);
				assertThat(tests).as(row).containsKey(type);
				if (method != null) {
					assertThat(Files.readString(tests.get(type))).as(row).containsPattern("void " + method + "\\(");
				}
				named++;
			}
			assertThat(named).as(row).isPositive();
		}
	}

	private String read(String path) throws IOException {
		return Files.readString(this.root.resolve(path));
	}

	private static List<String> blocks(String page, String language) {
		return FENCED_BLOCK.matcher(page)
			.results()
			.filter((block) -> block.group(1).equals(language))
			.map((block) -> block.group(2))
			.toList();
	}

	private static String withoutFencedBlocks(String page) {
		return FENCED_BLOCK.matcher(page).replaceAll("");
	}

	private static String strip(String xml) {
		return xml.lines().map(String::strip).collect(Collectors.joining("\n"));
	}

	private static List<Path> javaFiles(Path dir) throws IOException {
		try (Stream<Path> files = Files.walk(dir)) {
			return files.filter((path) -> path.toString().endsWith(".java")).toList();
		}
	}

	private static Path repositoryRoot() {
		try {
			Path root = Path.of("..").toRealPath();
			assertThat(root.resolve("README.md")).as("the repository's README, from the module directory").exists();
			return root;
		}
		catch (IOException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
