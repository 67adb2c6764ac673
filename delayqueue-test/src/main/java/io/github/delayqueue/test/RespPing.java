package io.github.delayqueue.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * The smallest RESP client there is: enough to see whether a server answers.
 */
final class RespPing {

	private RespPing() {
	}

	static String ping(String host, int port, String password) throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), 500);
			socket.setSoTimeout(1000);
			OutputStream out = socket.getOutputStream();
			InputStream in = socket.getInputStream();
			if (password != null) {
				out.write(command("AUTH", password));
				readLine(in);
			}
			out.write(command("PING"));
			out.flush();
			return readLine(in);
		}
	}

	private static byte[] command(String... words) {
		StringBuilder builder = new StringBuilder("*").append(words.length).append("\r\n");
		for (String word : words) {
			byte[] bytes = word.getBytes(StandardCharsets.UTF_8);
			builder.append('$').append(bytes.length).append("\r\n").append(word).append("\r\n");
		}
		return builder.toString().getBytes(StandardCharsets.UTF_8);
	}

	private static String readLine(InputStream in) throws IOException {
		StringBuilder line = new StringBuilder();
		int c;
		while ((c = in.read()) != -1 && c != '\n') {
			if (c != '\r') {
				line.append((char) c);
			}
		}
		return line.toString();
	}

}
