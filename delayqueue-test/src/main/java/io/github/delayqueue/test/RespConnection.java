package io.github.delayqueue.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A plain RESP2 connection for test checks: commands as words, replies as {@code String}
 * (simple and bulk strings, decoded as UTF-8), {@code Long}, {@code List} or {@code null}; an
 * error reply is a {@link RespError}. Not thread-safe.
 */
public final class RespConnection implements AutoCloseable {

	private final String host;

	private final int port;

	private final Socket socket;

	private final InputStream in;

	private final OutputStream out;

	/**
	 * Connects, and authenticates when a password is given.
	 * @param host the host
	 * @param port the port
	 * @param password the password, or {@code null}
	 */
	public RespConnection(String host, int port, @Nullable String password) {
		this.host = host;
		this.port = port;
		try {
			this.socket = new Socket();
			this.socket.connect(new InetSocketAddress(host, port), 2_000);
			this.socket.setSoTimeout(30_000);
			this.in = new BufferedInputStream(this.socket.getInputStream());
			this.out = new BufferedOutputStream(this.socket.getOutputStream());
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not connect to Redis at " + host + ":" + port, ex);
		}
		if (password != null) {
			call("AUTH", password);
		}
	}

	/**
	 * A connection to a test server.
	 * @param server the server
	 * @return the connection
	 */
	public static RespConnection to(RedisTestServer server) {
		return new RespConnection(server.host(), server.port(), server.password());
	}

	/**
	 * The host it is connected to.
	 * @return the host
	 */
	public String host() {
		return this.host;
	}

	/**
	 * The port it is connected to.
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * Sends one command and reads its reply.
	 * @param words the command and its arguments
	 * @return the reply, {@code null} for a nil reply
	 * @throws RespError when Redis answers with an error
	 */
	public @Nullable Object call(String... words) {
		return call(List.of(words));
	}

	/**
	 * Sends one command and reads its reply.
	 * @param words the command and its arguments
	 * @return the reply, {@code null} for a nil reply
	 * @throws RespError when Redis answers with an error
	 */
	public @Nullable Object call(List<String> words) {
		try {
			ByteArrayOutputStream command = new ByteArrayOutputStream();
			command.write(("*" + words.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
			for (String word : words) {
				byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
				command.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
				command.write(bytes);
				command.write('\r');
				command.write('\n');
			}
			command.writeTo(this.out);
			this.out.flush();
			return read();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(words.get(0) + " on " + this.host + ":" + this.port + " failed", ex);
		}
	}

	private @Nullable Object read() throws IOException {

		String line = readLine();
		if (line.isEmpty()) {
			throw new IOException("the connection closed without a reply");
		}
		String rest = line.substring(1);
		switch (line.charAt(0)) {
			case '+':
				return rest;
			case '-':
				throw new RespError(rest);
			case ':':
				return Long.parseLong(rest);
			case '$': {
				int length = Integer.parseInt(rest);
				if (length < 0) {
					return null;
				}
				byte[] bulk = this.in.readNBytes(length + 2);
				return new String(bulk, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(rest);
				if (count < 0) {
					return null;
				}
				List<@Nullable Object> items = new ArrayList<>(count);

				for (int i = 0; i < count; i++) {
					items.add(read());
				}
				return items;
			}
			default:
				throw new IOException("Unexpected reply: " + line);
		}
	}

	private String readLine() throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int c;
		while ((c = this.in.read()) != -1 && c != '\n') {
			if (c != '\r') {
				line.write(c);
			}
		}
		return line.toString(StandardCharsets.UTF_8);
	}

	/**
	 * The reply of a command that answers an array ({@code SCAN}, {@code ZRANGE},
	 * {@code HGETALL}, ...), which is never nil.
	 */
	@SuppressWarnings("NullAway") // the checker cannot know which commands never answer nil
	static List<?> array(@Nullable Object reply) {
		return (List<?>) reply;
	}

	@Override
	public void close() {

		try {
			this.socket.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
	}

	/**
	 * An error reply.
	 */
	public static final class RespError extends RuntimeException {

		RespError(String message) {
			super(message);
		}

	}

}
