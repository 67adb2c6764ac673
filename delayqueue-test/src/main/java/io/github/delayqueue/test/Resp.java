package io.github.delayqueue.test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The smallest RESP client there is: one command per connection, replies as text. Enough to
 * see whether a server answers and to set up a cluster without {@code redis-cli}.
 */
final class Resp {

	private Resp() {
	}

	@SuppressWarnings("NullAway") // PING answers PONG or an error, never nil
	static String ping(String host, int port, @Nullable String password) throws IOException {

		return call(host, port, password, List.of("PING"));
	}

	/**
	 * Sends one command.
	 * @return a simple or bulk string reply, or an integer reply as text ({@code null} for a
	 * nil reply)
	 * @throws IOException when the server cannot be reached or answers with an error
	 */
	static @Nullable String call(String host, int port, @Nullable String password, List<String> words)
			throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			socket.setSoTimeout(5000);
			OutputStream out = socket.getOutputStream();
			InputStream in = socket.getInputStream();
			if (password != null) {
				out.write(command(List.of("AUTH", password)));
				reply(in);
			}
			out.write(command(words));
			out.flush();
			return reply(in);
		}
	}

	private static byte[] command(List<String> words) {
		StringBuilder builder = new StringBuilder("*").append(words.size()).append("\r\n");
		for (String word : words) {
			byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
			builder.append('$').append(bytes.length).append("\r\n").append(word).append("\r\n");
		}
		return builder.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static @Nullable String reply(InputStream in) throws IOException {

		String line = readLine(in);
		if (line.isEmpty()) {
			throw new IOException("the connection closed without a reply");
		}
		switch (line.charAt(0)) {
			case '-':
				throw new IOException("Redis answered: " + line.substring(1));
			case '$': {
				int length = Integer.parseInt(line.substring(1));
				if (length < 0) {
					return null;
				}
				byte[] bulk = in.readNBytes(length + 2);
				return new String(bulk, 0, length, StandardCharsets.UTF_8);
			}
			default:
				// '+' simple string, ':' integer
				return line;
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int c;
		while ((c = in.read()) != -1 && c != '\n') {
			if (c != '\r') {
				line.write(c);
			}
		}
		return line.toString(StandardCharsets.UTF_8);
	}

}
