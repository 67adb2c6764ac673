package io.github.delayqueue.autoconfigure;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

/**
 * The analysis Spring Boot reports for a start-up failure: the first that an analyzer
 * registered in {@code META-INF/spring.factories} (Boot's and ours) gives, as Boot does.
 */
public final class FailureAnalyses {

	private FailureAnalyses() {
	}

	/**
	 * Analyzes a failure.
	 * @param failure the start-up failure
	 * @param properties the application's properties, {@code name=value}
	 * @return the analysis
	 */
	public static FailureAnalysis of(Throwable failure, String... properties) {
		List<FailureAnalyzer> analyzers = SpringFactoriesLoader
			.forDefaultResourceLocation(FailureAnalyses.class.getClassLoader())
			.load(FailureAnalyzer.class,
					ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
						.and(Environment.class, environment(properties)),
					FailureHandler.logging(LogFactory.getLog(FailureAnalyses.class)));
		for (FailureAnalyzer analyzer : analyzers) {
			FailureAnalysis analysis = analyzer.analyze(failure);
			if (analysis != null) {
				return analysis;
			}
		}
		throw new AssertionError("No failure analyzer analyzes " + failure);
	}

	private static Environment environment(String... properties) {
		Map<String, Object> values = new LinkedHashMap<>();
		for (String property : properties) {
			int equals = property.indexOf('=');
			values.put(property.substring(0, equals), property.substring(equals + 1));
		}
		StandardEnvironment environment = new StandardEnvironment();
		environment.getPropertySources().addFirst(new MapPropertySource("test", values));
		ConfigurationPropertySources.attach(environment);
		return environment;
	}

}
