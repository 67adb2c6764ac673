package io.github.delayqueue.security;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority and a server certificate for {@code localhost} and
 * {@code 127.0.0.1} signed by it, made with the JDK's {@code keytool} (no openssl needed),
 * written as PEM files that redis-server and Spring Boot's PEM SSL bundles read.
 *
 * @param caCertificate the CA's certificate
 * @param serverCertificate the server's certificate
 * @param serverKey the server's private key (PKCS#8)
 */
record TestCertificates(Path caCertificate, Path serverCertificate, Path serverKey) {

	private static final String PASSWORD = "changeit";

	static TestCertificates create(Path directory) throws Exception {
		Path ca = directory.resolve("ca.p12");
		Path server = directory.resolve("server.p12");
		keytool("-genkeypair", "-alias", "ca", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname",
				"CN=delayqueue test CA", "-ext", "bc:c", "-keystore", ca.toString());
		keytool("-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2", "-dname",
				"CN=localhost", "-keystore", server.toString());
		Path request = directory.resolve("server.csr");
		keytool("-certreq", "-alias", "server", "-keystore", server.toString(), "-file", request.toString());
		Path serverCertificate = directory.resolve("server.crt");
		keytool("-gencert", "-alias", "ca", "-keystore", ca.toString(), "-infile", request.toString(), "-outfile",
				serverCertificate.toString(), "-rfc", "-validity", "2", "-ext", "san=dns:localhost,ip:127.0.0.1");
		Path caCertificate = directory.resolve("ca.crt");
		keytool("-exportcert", "-alias", "ca", "-keystore", ca.toString(), "-rfc", "-file", caCertificate.toString());
		Path serverKey = directory.resolve("server.key");
		Files.writeString(serverKey, pem("PRIVATE KEY", privateKey(server, "server").getEncoded()));
		return new TestCertificates(caCertificate, serverCertificate, serverKey);
	}

	private static Key privateKey(Path keyStore, String alias) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(keyStore)) {
			store.load(in, PASSWORD.toCharArray());
		}
		return store.getKey(alias, PASSWORD.toCharArray());
	}

	private static String pem(String type, byte[] der) {
		return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
			.encodeToString(der) + "\n-----END " + type + "-----\n";
	}

	private static void keytool(String... arguments) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
		command.addAll(List.of(arguments));
		command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD, "-noprompt"));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("keytool failed: " + command + "\n" + output);
		}
	}

}
