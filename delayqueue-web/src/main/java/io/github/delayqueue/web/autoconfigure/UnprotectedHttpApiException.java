package io.github.delayqueue.web.autoconfigure;

/**
 * The HTTP job API is enabled, but nothing protects it: no tokens, and the application has
 * not said that its own security does, nor that anonymous access is wanted.
 */
class UnprotectedHttpApiException extends IllegalStateException {

	private final String paths;

	private final boolean springSecurity;

	UnprotectedHttpApiException(String paths, boolean springSecurity) {
		super("delayqueue.http.enabled=true: nothing protects the HTTP job API at " + paths
				+ (springSecurity ? " (Spring Security on the classpath is not enough: its chains may not cover those"
						+ " paths, or may permit them)" : "")
				+ ". Set one of: delayqueue.http.tokens (bearer tokens the API checks itself, with or without Spring"
				+ " Security); delayqueue.http.secured-by-application=true (the application's own security, such as a"
				+ " SecurityFilterChain, authenticates " + paths + "); delayqueue.http.allow-anonymous=true (anyone"
				+ " who reaches the port may use the API: a trusted network only)");
		this.paths = paths;
		this.springSecurity = springSecurity;
	}

	/**
	 * The paths of the API.
	 * @return the paths, such as {@code /delayqueue/**}
	 */
	String getPaths() {
		return this.paths;
	}

	/**
	 * Whether Spring Security is on the classpath.
	 * @return whether it is
	 */
	boolean isSpringSecurity() {
		return this.springSecurity;
	}

}
