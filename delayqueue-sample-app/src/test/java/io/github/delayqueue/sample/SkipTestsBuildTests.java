package io.github.delayqueue.sample;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code -DskipTests} skips every test of the build, the integration tests (Failsafe, which
 * since 3.6 no longer reads {@code skipTests} itself) and the quick-start project (Invoker)
 * included; {@code -DskipITs} alone skips only the integration tests. The README's first command
 * ({@code -Dmaven.test.skip}) still finds the test jar that the integration modules' tests use.
 */
class SkipTestsBuildTests {

	private final Path root = Path.of("..").toAbsolutePath().normalize();

	@Test
	void theRootPomBindsSkipItsToSkipTests() throws Exception {
		Element properties = child(pom("pom.xml").getDocumentElement(), "properties");
		assertThat(text(properties, "skipTests")).isEqualTo("false");
		assertThat(text(properties, "skipITs")).isEqualTo("${skipTests}");
	}

	@Test
	void noModuleOverridesTheBindingAndTheQuickStartFollowsSkipTests() throws Exception {
		Element modules = child(pom("pom.xml").getDocumentElement(), "modules");
		for (Element module : children(modules, "module")) {
			Document pom = pom(module.getTextContent().trim() + "/pom.xml");
			NodeList skips = pom.getElementsByTagName("skipITs");
			assertThat(skips.getLength()).as("skipITs set in " + module.getTextContent()).isZero();
			for (Element plugin : plugins(pom, "maven-failsafe-plugin")) {
				assertThat(plugin.getElementsByTagName("skip").getLength())
					.as("a <skip> of Failsafe in " + module.getTextContent())
					.isZero();
			}
		}
		List<Element> invoker = plugins(pom("delayqueue-sample-app/pom.xml"), "maven-invoker-plugin");
		assertThat(invoker).hasSize(1);
		assertThat(text(invoker.get(0), "skipInvocation")).isEqualTo("${skipTests}");
		assertThat(text(invoker.get(0), "skipInstallation")).isEqualTo("${skipTests}");
	}

	@Test
	void theSharedTestJarIsBuiltAlsoWhenTestsAreNotCompiled() throws Exception {
		List<Element> jar = plugins(pom("delayqueue-autoconfigure/pom.xml"), "maven-jar-plugin");
		assertThat(jar).hasSize(1);
		assertThat(text(jar.get(0), "goal")).isEqualTo("test-jar");
		assertThat(text(jar.get(0), "skip")).as("-Dmaven.test.skip must not skip the test jar").isEqualTo("false");
	}

	private Document pom(String path) throws Exception {
		return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(this.root.resolve(path).toFile());
	}

	private static List<Element> plugins(Document pom, String artifactId) {
		List<Element> found = new ArrayList<>();
		NodeList plugins = pom.getElementsByTagName("plugin");
		for (int i = 0; i < plugins.getLength(); i++) {
			Element plugin = (Element) plugins.item(i);
			if (artifactId.equals(text(plugin, "artifactId"))) {
				found.add(plugin);
			}
		}
		return found;
	}

	private static String text(Element parent, String name) {
		NodeList nodes = parent.getElementsByTagName(name);
		assertThat(nodes.getLength()).as("<" + name + "> in <" + parent.getTagName() + ">").isPositive();
		return nodes.item(0).getTextContent().trim();
	}

	private static Element child(Element parent, String name) {
		List<Element> found = children(parent, name);
		assertThat(found).as("<" + name + "> in <" + parent.getTagName() + ">").hasSize(1);
		return found.get(0);
	}

	private static List<Element> children(Element parent, String name) {
		List<Element> found = new ArrayList<>();
		for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				found.add(element);
			}
		}
		return found;
	}

}
