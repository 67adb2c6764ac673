package io.github.delayqueue.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;

/**
 * Programs the tests need on the {@code PATH} ({@code .ci/run} installs them): a missing one
 * skips the test, saying what to install, except on CI ({@code CI} set), where it fails it.
 */
final class Executables {

	private Executables() {
	}

	/**
	 * The first of the names found on the {@code PATH}.
	 * @param install the Debian packages that provide it, for the message
	 * @param names the names to look for, the preferred first
	 * @return its path
	 */
	static String find(String install, String... names) {
		for (String name : names) {
			for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
				if (Files.isExecutable(Path.of(dir, name))) {
					return Path.of(dir, name).toString();
				}
			}
		}
		String message = String.join(" or ", names) + " is not on the PATH; .ci/run installs it (apt-get install "
				+ install + ")";
		if (System.getenv("CI") != null) {
			throw new IllegalStateException(message);
		}
		Assumptions.abort(message);
		return names[0];
	}

}
