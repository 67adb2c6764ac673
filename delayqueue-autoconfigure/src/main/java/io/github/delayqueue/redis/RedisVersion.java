package io.github.delayqueue.redis;

/**
 * The oldest Redis that delayqueue runs on: 6.2.
 */
final class RedisVersion {

	private RedisVersion() {
	}

	static boolean isSupported(String version) {
		String[] parts = version.trim().split("\\.");
		try {
			int major = Integer.parseInt(parts[0]);
			int minor = (parts.length > 1) ? Integer.parseInt(parts[1]) : 0;
			return major > 6 || (major == 6 && minor >= 2);
		}
		catch (NumberFormatException ex) {
			return true;
		}
	}

}
