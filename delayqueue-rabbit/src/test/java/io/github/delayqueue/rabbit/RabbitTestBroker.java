package io.github.delayqueue.rabbit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import org.apache.qpid.server.SystemLauncher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.util.FileSystemUtils;

/**
 * An AMQP 0-9-1 broker for the forwarding tests, found as the Redis test support finds
 * redis-server: a {@code rabbitmq-server} from the {@code PATH} (or Debian's
 * {@code /usr/lib/rabbitmq/bin}) started on free ports in a directory of its own, else Apache
 * Qpid Broker-J embedded in this JVM, so that the tests run on a machine with only a JDK.
 * {@code -Ddelayqueue.test.rabbit=qpid} forces the embedded broker. Logs which one it uses.
 * User {@code guest}, password {@code guest}; {@link #stop()} and {@link #start()} take it
 * down and bring it back on the same port.
 */
abstract class RabbitTestBroker {

	private static final Logger logger = LoggerFactory.getLogger(RabbitTestBroker.class);

	private static RabbitTestBroker shared;

	final int port;

	RabbitTestBroker(int port) {
		this.port = port;
	}

	static synchronized RabbitTestBroker shared() {
		if (shared == null) {
			Path server = "qpid".equals(System.getProperty("delayqueue.test.rabbit")) ? null : rabbitmqServer();
			shared = (server != null) ? new RabbitMqServer(server, freePort()) : new QpidBroker(freePort());
			shared.start();
			logger.info("Forwarding tests use {}", shared);
			RabbitTestBroker broker = shared;
			Runtime.getRuntime().addShutdownHook(new Thread(broker::stop, "delayqueue-test-rabbit-shutdown"));
		}
		return shared;
	}

	String[] springBootProperties() {
		return new String[] { "spring.rabbitmq.host=127.0.0.1", "spring.rabbitmq.port=" + this.port,
				"spring.rabbitmq.username=guest", "spring.rabbitmq.password=guest" };
	}

	abstract void start();

	abstract void stop();

	private static Path rabbitmqServer() {
		String path = System.getenv("PATH");
		if (path != null) {
			for (String directory : path.split(File.pathSeparator)) {
				Path candidate = Path.of(directory, "rabbitmq-server");
				if (Files.isExecutable(candidate)) {
					// Debian's /usr/sbin/rabbitmq-server switches to the rabbitmq user; the
					// script beside rabbitmqctl runs as whoever starts it
					Path direct = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
					return Files.isExecutable(direct) ? direct : candidate;
				}
			}
		}
		Path debian = Path.of("/usr/lib/rabbitmq/bin/rabbitmq-server");
		return Files.isExecutable(debian) ? debian : null;
	}

	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	static void awaitPort(int port, boolean open, Duration within) {
		long deadline = System.nanoTime() + within.toNanos();
		while (System.nanoTime() < deadline) {
			boolean listening;
			try (Socket socket = new Socket()) {
				socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
				listening = true;
			}
			catch (IOException ex) {
				listening = false;
			}
			if (listening == open) {
				return;
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		throw new IllegalStateException("port " + port + " did not " + (open ? "open" : "close") + " within " + within);
	}

	/** A rabbitmq-server process in a directory of its own. */
	static final class RabbitMqServer extends RabbitTestBroker {

		private final Path script;

		private final Path directory;

		private final String node;

		private Process process;

		RabbitMqServer(Path script, int port) {
			super(port);
			this.script = script;
			this.node = "delayqueue" + port + "@localhost";
			try {
				this.directory = Files.createTempDirectory("delayqueue-rabbit");
				Files.writeString(this.directory.resolve("enabled_plugins"), "[].");
				Path cookie = this.directory.resolve(".erlang.cookie");
				Files.writeString(cookie, UUID.randomUUID().toString().replace("-", ""), StandardCharsets.US_ASCII);
				cookie.toFile().setReadable(false, false);
				cookie.toFile().setReadable(true, true);
				cookie.toFile().setWritable(false, false);
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		@Override
		synchronized void start() {
			if (this.process != null && this.process.isAlive()) {
				return;
			}
			ProcessBuilder builder = new ProcessBuilder(this.script.toString()).directory(this.directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(this.directory.resolve("server.log").toFile());
			builder.environment().putAll(environment());
			try {
				this.process = builder.start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			awaitPort(this.port, true, Duration.ofSeconds(60));
		}

		private Map<String, String> environment() {
			Map<String, String> environment = new HashMap<>();
			environment.put("HOME", this.directory.toString());
			environment.put("RABBITMQ_NODENAME", this.node);
			environment.put("RABBITMQ_NODE_IP_ADDRESS", "127.0.0.1");
			environment.put("RABBITMQ_NODE_PORT", Integer.toString(this.port));
			environment.put("RABBITMQ_DIST_PORT", Integer.toString(freePort()));
			environment.put("RABBITMQ_MNESIA_BASE", this.directory.resolve("mnesia").toString());
			environment.put("RABBITMQ_LOG_BASE", this.directory.resolve("log").toString());
			environment.put("RABBITMQ_ENABLED_PLUGINS_FILE", this.directory.resolve("enabled_plugins").toString());
			environment.put("RABBITMQ_CONFIG_FILE", this.directory.resolve("rabbitmq").toString());
			environment.put("RABBITMQ_PID_FILE", this.directory.resolve("pid").toString());
			return environment;
		}

		@Override
		synchronized void stop() {
			if (this.process == null) {
				return;
			}
			List<ProcessHandle> children = this.process.descendants().toList();
			this.process.destroy();
			children.forEach(ProcessHandle::destroy);
			try {
				if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
					this.process.destroyForcibly();
					children.forEach(ProcessHandle::destroyForcibly);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			this.process = null;
			awaitPort(this.port, false, Duration.ofSeconds(30));
		}

		@Override
		public String toString() {
			return "rabbitmq-server " + this.script + " on port " + this.port + " (node " + this.node + ", "
					+ this.directory + ")";
		}

	}

	/** Apache Qpid Broker-J in this JVM, in memory. */
	static final class QpidBroker extends RabbitTestBroker {

		private final Path directory;

		private SystemLauncher launcher;

		QpidBroker(int port) {
			super(port);
			try {
				this.directory = Files.createTempDirectory("delayqueue-qpid");
				Files.writeString(this.directory.resolve("config.json"), """
						{
						  "name": "delayqueue-test",
						  "modelVersion": "9.0",
						  "authenticationproviders": [ {
						    "name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
						    "users": [ { "name": "guest", "password": "guest", "type": "managed" } ]
						  } ],
						  "ports": [ {
						    "name": "AMQP", "port": "%d", "bindingAddress": "127.0.0.1",
						    "protocols": [ "AMQP_0_9_1" ], "authenticationProvider": "plain",
						    "virtualhostaliases": [ { "name": "nameAlias", "type": "nameAlias" },
						      { "name": "defaultAlias", "type": "defaultAlias" } ]
						  } ],
						  "virtualhostnodes": [ {
						    "name": "default", "type": "Memory", "defaultVirtualHostNode": "true",
						    "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\"}"
						  } ]
						}
						""".formatted(port));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}

		@Override
		synchronized void start() {
			if (this.launcher != null) {
				return;
			}
			Map<String, Object> attributes = new HashMap<>();
			attributes.put("type", "Memory");
			attributes.put("initialConfigurationLocation",
					this.directory.resolve("config.json").toUri().toString());
			attributes.put("startupLoggedToSystemOut", false);
			attributes.put("qpid.work_dir", this.directory.resolve("work").toString());
			attributes.put("context", Map.of("qpid.work_dir", this.directory.resolve("work").toString(),
					"qpid.home_dir", this.directory.toString()));
			SystemLauncher launcher = new SystemLauncher();
			try {
				launcher.startup(attributes);
			}
			catch (Exception ex) {
				throw new IllegalStateException("Qpid Broker-J did not start", ex);
			}
			this.launcher = launcher;
			awaitPort(this.port, true, Duration.ofSeconds(30));
		}

		@Override
		synchronized void stop() {
			if (this.launcher == null) {
				return;
			}
			this.launcher.shutdown();
			this.launcher = null;
			awaitPort(this.port, false, Duration.ofSeconds(30));
			FileSystemUtils.deleteRecursively(this.directory.resolve("work").toFile());
		}

		@Override
		public String toString() {
			return "Apache Qpid Broker-J (embedded, in memory; no rabbitmq-server installed) on port " + this.port;
		}

	}

}
